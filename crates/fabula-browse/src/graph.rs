//! A world's tables as an entity graph in SVG, drawn on the server: one box per table (its
//! plural and row count) and one arrow per foreign key, from the referring table to the table
//! it points at, labelled with the column. Tables are laid out in layers: a table sits one
//! layer below the deepest table it refers to, so arrows point up.

use std::fmt::Write;

use fabula_file::Table;

use crate::markdown::escape;

const BOX_W: usize = 176;
const BOX_H: usize = 46;
const LAYER_H: usize = 110;
const GAP: usize = 24;
const MARGIN: usize = 16;

/// The SVG of the graph; `counts[i]` is the row count of `tables[i]`, and each box links to
/// `#t-TABLE` on the same page.
pub(crate) fn entity_graph(tables: &[Table], counts: &[usize]) -> String {
    let layers = layers(tables);
    let n_layers = layers.iter().copied().max().map_or(0, |top| top + 1);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); n_layers];
    for (table_idx, layer) in layers.iter().enumerate() {
        rows[*layer].push(table_idx);
    }
    let widest = rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let width = MARGIN * 2 + widest * BOX_W + (widest - 1) * GAP;
    let height = MARGIN * 2 + n_layers.max(1) * LAYER_H - (LAYER_H - BOX_H);
    let mut at = vec![(0usize, 0usize); tables.len()];
    for (layer, members) in rows.iter().enumerate() {
        let row_w = members.len() * BOX_W + members.len().saturating_sub(1) * GAP;
        let left = (width - row_w) / 2;
        for (slot, table_idx) in members.iter().enumerate() {
            at[*table_idx] = (left + slot * (BOX_W + GAP), MARGIN + layer * LAYER_H);
        }
    }
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" viewBox=\"0 0 {width} {height}\" \
         width=\"{width}\" height=\"{height}\" role=\"img\" aria-labelledby=\"graph-title\">\
         <title id=\"graph-title\">Entity graph: {} tables and their references</title>\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#444\"/></marker></defs>",
        tables.len()
    );
    draw_edges(&mut svg, tables, &at);
    for (table_idx, table) in tables.iter().enumerate() {
        let (x, y) = at[table_idx];
        let count = counts.get(table_idx).copied().unwrap_or(0);
        let _ = write!(
            svg,
            "<a href=\"#t-{name}\"><rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"6\" \
             class=\"node\"/><text x=\"{cx}\" y=\"{ty}\" text-anchor=\"middle\" class=\"node-name\">{plural}</text>\
             <text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" class=\"node-count\">{count} rows</text>\
             <title>{plural}: {count} rows, table {name}, role {role}</title></a>",
            name = escape(&table.name),
            cx = x + BOX_W / 2,
            ty = y + 19,
            cy = y + 36,
            plural = escape(&table.plural),
            role = table.role.as_str(),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Draws one arrow per foreign key, from the top of the referring box to the bottom of the
/// referred one. Each box's arrow ends are spread along its side, ordered by where the other
/// end lies, so arrows into one table do not meet in one point; labels sit near the start.
fn draw_edges(svg: &mut String, tables: &[Table], at: &[(usize, usize)]) {
    let mut edges = Vec::new();
    for (from_idx, table) in tables.iter().enumerate() {
        for column in &table.columns {
            let target = column.references.as_deref();
            if let Some(to_idx) = target.and_then(|t| tables.iter().position(|x| x.name == t)) {
                edges.push((from_idx, to_idx, column.label.as_str()));
            }
        }
    }
    let centre = |idx: usize| at[idx].0 + BOX_W / 2;
    // Per edge: its x on the source's top side and on the target's bottom side.
    let spread = |side_of: &dyn Fn(usize) -> usize, other_of: &dyn Fn(usize) -> usize| {
        let mut xs = vec![0usize; edges.len()];
        for (node, (left, _)) in at.iter().enumerate() {
            let mut mine: Vec<usize> = (0..edges.len()).filter(|e| side_of(*e) == node).collect();
            mine.sort_by_key(|e| (centre(other_of(*e)), *e));
            for (slot, e) in mine.iter().enumerate() {
                xs[*e] = left + (slot + 1) * BOX_W / (mine.len() + 1);
            }
        }
        xs
    };
    let starts = spread(&|e| edges[e].0, &|e| edges[e].1);
    let ends = spread(&|e| edges[e].1, &|e| edges[e].0);
    for (e, (from_idx, to_idx, label)) in edges.iter().enumerate() {
        let (x1, y1) = (starts[e], at[*from_idx].1);
        let (x2, y2) = (ends[e], at[*to_idx].1 + BOX_H);
        let (lx, ly) = ((3 * x1 + x2) / 4, (3 * y1 + y2) / 4);
        let _ = write!(
            svg,
            "<g class=\"edge\"><title>{from} → {to} ({label})</title>\
             <line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" marker-end=\"url(#arrow)\"/>\
             <text x=\"{lx}\" y=\"{ly}\" text-anchor=\"middle\" class=\"edge-label\">{label}</text></g>",
            from = escape(&tables[*from_idx].name),
            to = escape(&tables[*to_idx].name),
            label = escape(label),
        );
    }
}

/// Each table's layer: 0 for a table that refers to none, else one more than the deepest
/// table it refers to (self references and cycles are ignored).
fn layers(tables: &[Table]) -> Vec<usize> {
    let mut layer = vec![0usize; tables.len()];
    for _ in 0..tables.len() {
        let mut changed = false;
        for (idx, table) in tables.iter().enumerate() {
            for target in table.columns.iter().filter_map(|c| c.references.as_deref()) {
                let Some(target_idx) = tables.iter().position(|t| t.name == target) else {
                    continue;
                };
                if target_idx != idx
                    && layer[idx] <= layer[target_idx]
                    && layer[target_idx] < tables.len()
                {
                    layer[idx] = layer[target_idx] + 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    layer
}

#[cfg(test)]
mod tests {
    use fabula_file::{Column, ColumnRole, SqlType, TableRole};

    use super::*;

    fn table(name: &str, refs: &[&str]) -> Table {
        let mut columns = vec![Column {
            name: "id".into(),
            sql_type: SqlType::Integer,
            role: ColumnRole::Id,
            nullable: false,
            references: None,
            derived: None,
            label: "id".into(),
        }];
        for target in refs {
            columns.push(Column {
                name: format!("{target}_id"),
                sql_type: SqlType::Integer,
                role: ColumnRole::Region,
                nullable: false,
                references: Some((*target).to_owned()),
                derived: None,
                label: format!("<{target}>"),
            });
        }
        Table {
            role: TableRole::Region,
            name: name.into(),
            singular: name.into(),
            plural: format!("{name}s"),
            columns,
        }
    }

    #[test]
    fn tables_sit_below_what_they_refer_to_and_labels_are_escaped() {
        let tables = [
            table("member", &["person", "club"]),
            table("region", &[]),
            table("person", &["region"]),
            table("club", &["region", "person"]),
        ];
        assert_eq!(layers(&tables), [3, 0, 1, 2]);
        let svg = entity_graph(&tables, &[5, 2, 9, 3]);
        assert_eq!(svg.matches("<line").count(), 5);
        assert!(svg.contains("&lt;region&gt;"), "{svg}");
        assert!(
            svg.contains(">9 rows<") && svg.contains("role region"),
            "{svg}"
        );
        assert!(svg.contains("href=\"#t-person\""));
    }

    #[test]
    fn a_cycle_does_not_loop() {
        let tables = [table("a", &["b"]), table("b", &["a"])];
        let layers = layers(&tables);
        assert!(layers.iter().all(|layer| *layer <= 2), "{layers:?}");
    }
}
