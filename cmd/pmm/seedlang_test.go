package main

import "testing"

// TestSeedLanguage builds and runs testdata/seedlang, whose questions use
// the parts of the seed's language (seed 001, appendix A) beside
// function-execution: list values, aggregates used as relations,
// interval and point, function-invocation with function-name. In every
// mode each answer must be what the program counts for itself.
func TestSeedLanguage(t *testing.T) {
	wantInEveryMode(t, "../../testdata/seedlang", seedLanguageQueries)
}

// seedLanguageQueries are the queries of the answers the program counts,
// by the name of its "want" lines.
var seedLanguageQueries = map[string]string{
	"list_params":           "SELECT count(DISTINCT x) FROM list_params",
	"list_params_other":     "SELECT count(DISTINCT x) FROM list_params_other",
	"list_results":          "SELECT count(DISTINCT x) FROM list_results",
	"list_results_quote":    "SELECT count(DISTINCT x) FROM list_results_quote",
	"hot_keys":              "SELECT count(DISTINCT k) FROM hot_keys",
	"hot_key_lookups":       "SELECT count(DISTINCT x) FROM hot_key_lookups",
	"count_hot_keys":        "SELECT count FROM count_hot_keys",
	"cold_key_lookups":      "SELECT count(DISTINCT x) FROM cold_key_lookups",
	"invocations_of_add":    "SELECT count(DISTINCT x) FROM invocations_of_add",
	"named_adds":            "SELECT count(DISTINCT x) FROM named_adds WHERE n = 'main.Add'",
	"named_lookups_in_work": "SELECT count(DISTINCT x) FROM named_lookups_in_work WHERE n = 'main.Lookup'",
	"not_add_in_work":       "SELECT count(DISTINCT x) FROM not_add_in_work",
	"add_end_points":        "SELECT count(DISTINCT p) FROM add_end_points",
	"callee_names":          "SELECT group_concat(n, ',') FROM (SELECT DISTINCT n FROM callee_names ORDER BY n)",
	"called_by_work":        "SELECT count(DISTINCT x) FROM called_by_work",
	"points_in_work":        "SELECT count(DISTINCT p) FROM points_in_work",
}
