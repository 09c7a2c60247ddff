package static

// schema creates the tables and views of static.db. docs/STATIC.md
// describes them with example queries; keep the two in step.
const schema = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE files (
	id     INTEGER PRIMARY KEY,
	path   TEXT NOT NULL UNIQUE,
	sha256 TEXT NOT NULL
);
CREATE TABLE functions (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	match_name TEXT NOT NULL,
	pkg        TEXT NOT NULL,
	recv       TEXT,
	base       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	generic    INTEGER NOT NULL,
	exported   INTEGER NOT NULL,
	in_module  INTEGER NOT NULL,
	defined    INTEGER NOT NULL,
	file       TEXT,
	line       INTEGER,
	col        INTEGER,
	end_line   INTEGER,
	end_col    INTEGER,
	parent_id  INTEGER REFERENCES functions(id)
);
CREATE INDEX functions_name ON functions(name);
CREATE INDEX functions_match_name ON functions(match_name);
CREATE TABLE calls (
	id        INTEGER PRIMARY KEY,
	caller_id INTEGER REFERENCES functions(id),
	file      TEXT NOT NULL,
	line      INTEGER NOT NULL,
	col       INTEGER NOT NULL,
	end_line  INTEGER NOT NULL,
	end_col   INTEGER NOT NULL,
	kind      TEXT NOT NULL,
	via       TEXT NOT NULL,
	callee    TEXT,
	callee_id INTEGER REFERENCES functions(id),
	method    TEXT,
	external  INTEGER
);
CREATE INDEX calls_caller ON calls(caller_id);
CREATE TABLE call_targets (
	call_id     INTEGER NOT NULL REFERENCES calls(id),
	callee_name TEXT NOT NULL,
	callee_id   INTEGER NOT NULL REFERENCES functions(id),
	PRIMARY KEY (call_id, callee_id)
);
CREATE INDEX call_targets_callee ON call_targets(callee_id);
CREATE TABLE contains_static (
	outer_id INTEGER NOT NULL REFERENCES functions(id),
	inner_id INTEGER NOT NULL REFERENCES functions(id),
	depth    INTEGER NOT NULL,
	PRIMARY KEY (outer_id, inner_id)
);

CREATE VIEW calls_static (def_id, call_id) AS
	SELECT caller_id, id FROM calls WHERE caller_id IS NOT NULL;

CREATE VIEW calls_within (def_id, call_id) AS
	SELECT caller_id, id FROM calls WHERE caller_id IS NOT NULL
	UNION
	SELECT k.outer_id, c.id FROM contains_static k JOIN calls c ON c.caller_id = k.inner_id;

CREATE VIEW callgraph_edges (caller_def_id, callee_name, callee_def_id, call_id) AS
	SELECT c.caller_id, t.callee_name, t.callee_id, c.id
	FROM calls c JOIN call_targets t ON t.call_id = c.id
	WHERE c.caller_id IS NOT NULL;

CREATE VIEW calls_star_static (caller_def_id, callee_def_id) AS
	WITH RECURSIVE reach (caller_def_id, callee_def_id) AS (
		SELECT caller_def_id, callee_def_id FROM callgraph_edges
		UNION
		SELECT r.caller_def_id, e.callee_def_id
		FROM reach r JOIN callgraph_edges e ON e.caller_def_id = r.callee_def_id
	)
	SELECT caller_def_id, callee_def_id FROM reach;

CREATE VIEW spawns_static (def_id, call_id, callee_name, callee_def_id) AS
	SELECT c.caller_id, c.id, t.callee_name, t.callee_id
	FROM calls c LEFT JOIN call_targets t ON t.call_id = c.id
	WHERE c.via = 'go';
`
