package pmmrt

import "pmm.dev/pmm/rt/logfmt"

// Rec builds the fields of one tuple for Emit without allocating (the
// encoder of the log format, logfmt.Rec): declare one as a local variable
// (var r pmmrt.Rec), add the fields in column order, and pass it to Emit,
// which resets it.
type Rec = logfmt.Rec

// setTextMethods tells logfmt which of the module's types it may call
// the Error or String method of to record a value; the generated
// ConfigFile calls it (rt.Config's Module and TextTypes).
func setTextMethods(module string, types []string) { logfmt.SetTextMethods(module, types) }
