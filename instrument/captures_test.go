package instrument

import (
	"slices"
	"testing"
)

// TestTakenCaptures checks that the captures the runtime takes (those
// with a take) are exactly takenCaptures, which declares and takes them:
// a new capture of the runtime that only captureCodes names would be
// read from a state field no site declares.
func TestTakenCaptures(t *testing.T) {
	for c, cc := range captureCodes {
		if taken := slices.Contains(takenCaptures, c); (cc.take != "") != taken {
			t.Errorf("capture %s: take %q, in takenCaptures %v: a capture the runtime takes is in takenCaptures, and only it", c, cc.take, taken)
		}
	}
	for _, c := range takenCaptures {
		if cc := captureCodes[c]; cc.field == "" || cc.typ == "" {
			t.Errorf("capture %s is taken, and has no state field or type", c)
		}
	}
}
