// Package shapes has the dynamic types of an interface call whose
// methods are promoted from embedded fields, or declared by generic
// types.
package shapes

// Namer is the interface main calls Name through.
type Namer interface{ Name() string }

// Base declares Name, with a value receiver.
type Base struct{ ID int }

// Name is promoted to Rect, *Rect and *Square.
func (b Base) Name() string { return "base" }

// Rect embeds Base: Rect.Name runs Base.Name.
type Rect struct {
	Base
	W, H int
}

// Square embeds *Base: *Square's Name runs Base.Name too.
type Square struct {
	*Base
	S int
}

// Box is generic; its Name has a pointer receiver.
type Box[T any] struct{ V T }

// Name of a box.
func (b *Box[T]) Name() string { return "box" }

// Own declares its own Name, which hides nothing.
type Own struct{}

// Name of Own.
func (Own) Name() string { return "own" }

// Labeler has a Name that no type declaring a Name implements (none has
// Label): a Tagged, which embeds it, runs none of them.
type Labeler interface {
	Name() string
	Label() string
}

// Tagged implements Namer by its embedded Labeler.
type Tagged struct{ Labeler }

// Plain is a Labeler.
type Plain struct{}

// Name of Plain.
func (Plain) Name() string { return "plain" }

// Label of Plain.
func (Plain) Label() string { return "label" }

// Wrapped forwards Name to the Namer it embeds, whose dynamic type may
// be any of them: a call through Namer cannot tell by Wrapped which one
// runs.
type Wrapped struct{ Namer }

// Cell is generic, and instantiated only in NewCell, by its type
// parameter: its instantiations are not in the sources.
type Cell[T any] struct{ V T }

// Name of a cell.
func (c Cell[T]) Name() string { return "cell" }

// NewCell returns a Cell[T] as a Namer.
func NewCell[T any](v T) Namer { return Cell[T]{V: v} }

// Getter is a generic interface.
type Getter[T any] interface{ Get() T }

// Inner is a generic Getter.
type Inner[T any] struct{ V T }

// Get of an Inner: Get() int of Inner[int], Get() string of
// Inner[string].
func (i Inner[T]) Get() T { return i.V }

// Outer promotes Inner[T]'s Get.
type Outer[T any] struct{ Inner[T] }

// Const is a Getter[int].
type Const int

// Get of a Const.
func (c Const) Get() int { return int(c) }
