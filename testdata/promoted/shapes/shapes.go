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
