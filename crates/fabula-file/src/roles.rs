//! The roles of domain tables and columns, as `fabula_tables.role` and `fabula_columns.role`
//! store them.
//!
//! Table and column names come from a world's theme (`islands.area_km2`), while roles are the same
//! in every world, so readers such as `fabula check` interpret any world through its roles.

use crate::kinds::named_enum;

named_enum! {
    /// The role a domain table plays in every world, in the order tables are created (parents
    /// before children, so foreign keys hold at each insert).
    TableRole {
        Region = "region",
        Settlement = "settlement",
        Person = "person",
        Organisation = "organisation",
        Membership = "membership",
        Tenure = "tenure",
        Work = "work",
        Event = "event",
        Participation = "participation",
        Alliance = "alliance",
        AllianceMembership = "alliance_membership",
        /// A settlement's population as one census counted it: a value with a history.
        Census = "census",
    }
}

named_enum! {
    /// What a column means in every theme.
    ColumnRole {
        /// The integer primary key.
        Id = "id",
        /// The entity's unique name.
        Name = "name",
        /// A theme-specific number (`area_km2`, `track_km`).
        Extra = "extra",
        Population = "population",
        /// A reference to the region a settlement lies in.
        Region = "region",
        /// The year an entity was founded.
        Founded = "founded",
        BirthYear = "birth_year",
        DeathYear = "death_year",
        /// A reference to the settlement a person was born in.
        Birthplace = "birthplace",
        Occupation = "occupation",
        Category = "category",
        /// A reference to the settlement an organisation or alliance is based in.
        Home = "home",
        /// A reference to the person who founded an organisation.
        Founder = "founder",
        /// A derived count of memberships.
        MemberCount = "member_count",
        /// A reference to a person from a link table.
        Person = "person",
        /// A reference to an organisation from a link table.
        Organisation = "organisation",
        MemberRole = "member_role",
        /// The year a membership began.
        Joined = "joined",
        /// The title of an office.
        Seat = "seat",
        StartYear = "start_year",
        EndYear = "end_year",
        /// The year of a work or an event.
        Year = "year",
        /// A reference to the settlement that hosted an event.
        Host = "host",
        /// A reference to an event from a participation.
        Event = "event",
        /// A participant's placing.
        Result = "result",
        /// A reference to an alliance from an alliance membership.
        Alliance = "alliance",
        /// A reference to the settlement a history row (a census) is about.
        Settlement = "settlement",
    }
}

impl ColumnRole {
    /// The roles whose values are years.
    pub const YEARS: [ColumnRole; 7] = [
        ColumnRole::Founded,
        ColumnRole::BirthYear,
        ColumnRole::DeathYear,
        ColumnRole::Joined,
        ColumnRole::StartYear,
        ColumnRole::EndYear,
        ColumnRole::Year,
    ];
}

named_enum! {
    /// The SQL type of a domain column, as `CREATE TABLE` and `fabula_columns.sql_type` write
    /// it; every domain table is STRICT.
    SqlType {
        Integer = "INTEGER",
        Text = "TEXT",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_round_trip() {
        for role in TableRole::ALL {
            assert_eq!(TableRole::parse(role.as_str()), Some(role));
        }
        for role in ColumnRole::ALL {
            assert_eq!(ColumnRole::parse(role.as_str()), Some(role));
        }
        assert_eq!(ColumnRole::parse("founded_year"), None);
        assert_eq!(SqlType::parse("INTEGER"), Some(SqlType::Integer));
        assert_eq!(SqlType::parse("REAL"), None);
    }
}
