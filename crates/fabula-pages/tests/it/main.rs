//! Integration tests of page rendering: snapshots, coverage, provenance and variety.

mod pages;
