// Package spec owns the PMM question language: its parser, its checks
// (the integrity constraints IC1–IC4 of SmartMonitor and the safety rules
// of relational calculus), its normalization into disjunctive normal form
// over primitive events, and the vocabulary of Go primitives that every
// later stage of pmm reads.
package spec
