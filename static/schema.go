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
	parent_id  INTEGER REFERENCES functions(id),
	reached    INTEGER,
	hidden_callers INTEGER
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
	external  INTEGER,
	loop_depth INTEGER NOT NULL,
	allocates INTEGER
);
CREATE INDEX calls_caller ON calls(caller_id);
CREATE TABLE call_targets (
	call_id     INTEGER NOT NULL REFERENCES calls(id),
	callee_name TEXT NOT NULL,
	callee_id   INTEGER NOT NULL REFERENCES functions(id),
	PRIMARY KEY (call_id, callee_id)
);
CREATE INDEX call_targets_callee ON call_targets(callee_id);
CREATE TABLE callback_targets (
	call_id     INTEGER NOT NULL REFERENCES calls(id),
	callee_name TEXT NOT NULL,
	callee_id   INTEGER NOT NULL REFERENCES functions(id),
	how         TEXT NOT NULL,
	PRIMARY KEY (call_id, callee_id)
);
CREATE INDEX callback_targets_callee ON callback_targets(callee_id);
CREATE TABLE callback_sets (
	call_id INTEGER PRIMARY KEY REFERENCES calls(id),
	set_id  INTEGER NOT NULL
);
CREATE INDEX callback_sets_set ON callback_sets(set_id);
CREATE TABLE callback_set_members (
	set_id    INTEGER NOT NULL,
	callee_id INTEGER NOT NULL REFERENCES functions(id),
	PRIMARY KEY (set_id, callee_id)
);
CREATE INDEX callback_set_members_callee ON callback_set_members(callee_id);
CREATE TABLE contains_static (
	outer_id INTEGER NOT NULL REFERENCES functions(id),
	inner_id INTEGER NOT NULL REFERENCES functions(id),
	depth    INTEGER NOT NULL,
	PRIMARY KEY (outer_id, inner_id)
);
CREATE TABLE regions (
	id          INTEGER PRIMARY KEY,
	function_id INTEGER NOT NULL REFERENCES functions(id),
	label       TEXT NOT NULL,
	kind        TEXT NOT NULL,
	loop        INTEGER NOT NULL,
	file        TEXT NOT NULL,
	line        INTEGER NOT NULL,
	col         INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	end_col     INTEGER NOT NULL
);
CREATE INDEX regions_function ON regions(function_id, label);
-- The operations that may block their goroutine (docs/STATIC.md): channel
-- sends and receives, selects without default, range over a channel,
-- and the blocking methods of sync.
CREATE TABLE blocking (
	id          INTEGER PRIMARY KEY,
	function_id INTEGER NOT NULL REFERENCES functions(id),
	kind        TEXT NOT NULL,
	operand     TEXT NOT NULL,
	statement   INTEGER NOT NULL,
	file        TEXT NOT NULL,
	line        INTEGER NOT NULL,
	col         INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	end_col     INTEGER NOT NULL
);
CREATE INDEX blocking_function ON blocking(function_id, kind);
-- The allocation sites of the module's source (docs/MEMORY.md): where
-- the compiler may allocate, at the position its diagnostics name.
CREATE TABLE allocations (
	id           INTEGER PRIMARY KEY,
	function_id  INTEGER REFERENCES functions(id),
	file         TEXT NOT NULL,
	line         INTEGER NOT NULL,
	col          INTEGER NOT NULL,
	end_line     INTEGER NOT NULL,
	end_col      INTEGER NOT NULL,
	kind         TEXT NOT NULL,
	type         TEXT NOT NULL,
	elem_type    TEXT,
	elements     INTEGER,
	bytes        INTEGER,
	heap         INTEGER,
	heap_inlined INTEGER,
	inlinable    INTEGER
);
CREATE INDEX allocations_function ON allocations(function_id);
-- The named types of the module that fmt prints by a method (Format,
-- else Error, else String), the type and its pointer type apart: why
-- is NULL when the method is free of effects, so that the runtime may
-- call it to record a value (docs/STATIC.md, "Text methods").
CREATE TABLE text_methods (
	pkg      TEXT NOT NULL,
	pkg_name TEXT NOT NULL,
	type     TEXT NOT NULL,
	pointer  INTEGER NOT NULL,
	method   TEXT NOT NULL,
	why      TEXT,
	PRIMARY KEY (pkg, type, pointer)
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

CREATE VIEW callback_edges (caller_def_id, callee_name, callee_def_id, call_id, how) AS
	SELECT c.caller_id, t.callee_name, t.callee_id, c.id, t.how
	FROM calls c JOIN callback_targets t ON t.call_id = c.id
	WHERE c.caller_id IS NOT NULL
	UNION ALL
	SELECT c.caller_id, f.name, m.callee_id, c.id, 'type'
	FROM calls c JOIN callback_sets s ON s.call_id = c.id
	JOIN callback_set_members m ON m.set_id = s.set_id JOIN functions f ON f.id = m.callee_id
	WHERE c.caller_id IS NOT NULL
	AND NOT EXISTS (SELECT 1 FROM callback_targets t WHERE t.call_id = c.id AND t.callee_id = m.callee_id);

-- Reachability counts the functions that code outside the module may
-- call back, which the call graph cannot see. A callback set is a node of
-- its own (its id negated), so that each is expanded once.
CREATE VIEW calls_star_static (caller_def_id, callee_def_id) AS
	WITH RECURSIVE reach (caller_def_id, callee_def_id) AS (
		SELECT caller_def_id, callee_def_id FROM callgraph_edges
		UNION
		SELECT c.caller_id, t.callee_id FROM calls c JOIN callback_targets t ON t.call_id = c.id WHERE c.caller_id IS NOT NULL
		UNION
		SELECT c.caller_id, -s.set_id FROM calls c JOIN callback_sets s ON s.call_id = c.id WHERE c.caller_id IS NOT NULL
		UNION
		SELECT r.caller_def_id, e.callee_def_id
		FROM reach r JOIN callgraph_edges e ON e.caller_def_id = r.callee_def_id
		UNION
		SELECT r.caller_def_id, t.callee_id
		FROM reach r JOIN calls c ON c.caller_id = r.callee_def_id JOIN callback_targets t ON t.call_id = c.id
		UNION
		SELECT r.caller_def_id, -s.set_id
		FROM reach r JOIN calls c ON c.caller_id = r.callee_def_id JOIN callback_sets s ON s.call_id = c.id
		UNION
		SELECT r.caller_def_id, m.callee_id
		FROM reach r JOIN callback_set_members m ON m.set_id = -r.callee_def_id
	)
	SELECT caller_def_id, callee_def_id FROM reach WHERE callee_def_id > 0;

-- The allocation sites an execution of a definition may run: its own
-- (and those of the closures written in it, which run as its callees or
-- later), and those of every definition it may call, directly or not.
CREATE VIEW allocations_within (def_id, alloc_id) AS
	SELECT function_id, id FROM allocations WHERE function_id IS NOT NULL
	UNION
	SELECT k.outer_id, a.id FROM contains_static k JOIN allocations a ON a.function_id = k.inner_id;

CREATE VIEW allocations_reachable (def_id, alloc_id) AS
	SELECT def_id, alloc_id FROM allocations_within
	UNION
	SELECT r.caller_def_id, a.id FROM calls_star_static r JOIN allocations a ON a.function_id = r.callee_def_id;

-- The go statements (docs/STATIC.md): the sites of goroutine-execution,
-- one row per function the statement may start (its call's targets),
-- named by it; function_id is the function whose body holds it.
CREATE VIEW goroutines (id, function_id, started, started_id, file, line, col, end_line, end_col) AS
	SELECT c.id, c.caller_id, t.callee_name, t.callee_id, c.file, c.line, c.col, c.end_line, c.end_col
	FROM calls c JOIN call_targets t ON t.call_id = c.id
	WHERE c.via = 'go' AND c.caller_id IS NOT NULL;

CREATE VIEW spawns_static (def_id, call_id, callee_name, callee_def_id) AS
	SELECT c.caller_id, c.id, t.callee_name, t.callee_id
	FROM calls c LEFT JOIN call_targets t ON t.call_id = c.id
	WHERE c.via = 'go';
`
