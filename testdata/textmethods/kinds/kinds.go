// Package kinds has text methods in a package other than main.
package kinds

import "strconv"

// Kind is an enumeration as stringer writes it: free of effects.
type Kind int

const (
	Small Kind = iota
	Large
)

const kindName = "SmallLarge"

var kindIndex = [...]uint8{0, 5, 10}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindIndex)-1 {
		return "Kind(" + strconv.FormatInt(int64(k), 10) + ")"
	}
	return kindName[kindIndex[k]:kindIndex[k+1]]
}
