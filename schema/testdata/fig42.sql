CREATE TABLE IF NOT EXISTS pmm_sites (site INTEGER PRIMARY KEY, function TEXT, kind TEXT, file TEXT, line INTEGER, col INTEGER, label TEXT, operand TEXT);

CREATE TABLE IF NOT EXISTS pmm_site_vars (site INTEGER, question TEXT, var TEXT, PRIMARY KEY (site, question, var));

CREATE TABLE IF NOT EXISTS pmm_cells (run INTEGER, cell INTEGER, count INTEGER, sum, min, max);

CREATE TABLE IF NOT EXISTS monitor_fns_dura_params__exec (run INTEGER, id INTEGER, site INTEGER, PRIMARY KEY (run, id, site)) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS monitor_fns_dura_params__parameters (run INTEGER, id INTEGER, v TEXT);

CREATE INDEX IF NOT EXISTS monitor_fns_dura_params__parameters_by_id ON monitor_fns_dura_params__parameters (run, id);

CREATE TABLE IF NOT EXISTS monitor_fns_dura_params__parameter (run INTEGER, id INTEGER, n INTEGER, v);

CREATE INDEX IF NOT EXISTS monitor_fns_dura_params__parameter_by_id_n ON monitor_fns_dura_params__parameter (run, id, n);

CREATE TABLE IF NOT EXISTS monitor_fns_dura_params__duration (run INTEGER, id INTEGER, d INTEGER, PRIMARY KEY (run, id, d)) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS monitor_fns_dura_params__calls (run INTEGER, caller INTEGER, callee INTEGER, PRIMARY KEY (run, caller, callee)) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS monitor_fns_dura_params__calls_by_callee_caller ON monitor_fns_dura_params__calls (run, callee, caller);

DROP VIEW IF EXISTS fns_call_foo_and_bar;

CREATE VIEW fns_call_foo_and_bar AS
SELECT DISTINCT foo.run AS run, x.id AS x
FROM monitor_fns_dura_params__exec AS foo
JOIN monitor_fns_dura_params__exec AS bar ON bar.run = foo.run
JOIN monitor_fns_dura_params__exec AS x ON x.run = foo.run
JOIN monitor_fns_dura_params__parameter AS x_parameter ON x_parameter.run = foo.run AND x_parameter.id = x.id AND x_parameter.n = 1
JOIN monitor_fns_dura_params__calls AS x_calls_foo ON x_calls_foo.run = foo.run AND x_calls_foo.caller = x.id AND x_calls_foo.callee = foo.id
JOIN monitor_fns_dura_params__calls AS x_calls_bar ON x_calls_bar.run = foo.run AND x_calls_bar.caller = x.id AND x_calls_bar.callee = bar.id
WHERE +foo.site IN (SELECT site FROM pmm_sites WHERE replace(function, '[...]', '') = 'main.FOO')
  AND +bar.site IN (SELECT site FROM pmm_sites WHERE replace(function, '[...]', '') = 'main.BAR')
  AND NOT EXISTS (
      SELECT 1
      WHERE x_parameter.v = 0
  );

DROP VIEW IF EXISTS monitor_fns_dura_params;

CREATE VIEW monitor_fns_dura_params AS
SELECT DISTINCT foo.run AS run, z_duration.d AS x, z_parameters.v AS y
FROM monitor_fns_dura_params__exec AS foo
JOIN monitor_fns_dura_params__exec AS bar ON bar.run = foo.run
JOIN monitor_fns_dura_params__exec AS z ON z.run = foo.run
JOIN monitor_fns_dura_params__parameter AS z_parameter ON z_parameter.run = foo.run AND z_parameter.id = z.id AND z_parameter.n = 1
JOIN monitor_fns_dura_params__calls AS z_calls_foo ON z_calls_foo.run = foo.run AND z_calls_foo.caller = z.id AND z_calls_foo.callee = foo.id
JOIN monitor_fns_dura_params__calls AS z_calls_bar ON z_calls_bar.run = foo.run AND z_calls_bar.caller = z.id AND z_calls_bar.callee = bar.id
JOIN monitor_fns_dura_params__duration AS z_duration ON z_duration.run = foo.run AND z_duration.id = z.id
JOIN monitor_fns_dura_params__parameters AS z_parameters ON z_parameters.run = foo.run AND z_parameters.id = z.id
WHERE +foo.site IN (SELECT site FROM pmm_site_vars WHERE question = 'monitor-fns-dura-params' AND var = 'foo')
  AND +foo.site IN (SELECT site FROM pmm_sites WHERE replace(function, '[...]', '') = 'main.FOO')
  AND +bar.site IN (SELECT site FROM pmm_site_vars WHERE question = 'monitor-fns-dura-params' AND var = 'bar')
  AND +bar.site IN (SELECT site FROM pmm_sites WHERE replace(function, '[...]', '') = 'main.BAR')
  AND +z.site IN (SELECT site FROM pmm_site_vars WHERE question = 'monitor-fns-dura-params' AND var = 'z')
  AND NOT EXISTS (
      SELECT 1
      WHERE z_parameter.v = 0
  );
