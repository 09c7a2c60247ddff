package static

import (
	"fmt"
	"go/types"
	"strings"

	"pmm.dev/pmm/internal/funcname"
)

// runtimeName returns the name runtime.FuncForPC and pprof give fn: the
// symbol prefix of its package, then the receiver for methods ("(*T)" or
// "T"), then the name. Generic functions and methods of generic types carry
// funcname.TypeArgs in place of their type arguments, as the runtime prints them.
func runtimeName(fn *types.Func) string {
	fn = fn.Origin()
	prefix := ""
	if fn.Pkg() != nil {
		prefix = symbolPrefix(fn.Pkg()) + "."
	}
	sig := fn.Signature()
	recv := sig.Recv()
	if recv == nil {
		name := prefix + fn.Name()
		if sig.TypeParams().Len() > 0 {
			name += funcname.TypeArgs
		}
		return name
	}
	typeName, pointer := receiverName(recv.Type())
	if pointer {
		return prefix + "(*" + typeName + ")." + fn.Name()
	}
	return prefix + typeName + "." + fn.Name()
}

// receiverName returns the name of a method's receiver base type, with
// funcname.TypeArgs for generic types, and whether the receiver is a pointer.
func receiverName(t types.Type) (name string, pointer bool) {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t, pointer = p.Elem(), true
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		name = t.Obj().Name()
		if t.TypeParams().Len() > 0 || t.TypeArgs().Len() > 0 {
			name += funcname.TypeArgs
		}
	default:
		name = types.TypeString(t, func(*types.Package) string { return "" })
	}
	return name, pointer
}

// symbolPrefix is the prefix of the package's symbols: "main" for a
// command, otherwise the import path with the linker's escaping.
func symbolPrefix(pkg *types.Package) string {
	if pkg.Name() == "main" {
		return "main"
	}
	return pathToPrefix(pkg.Path())
}

// pathToPrefix escapes an import path as the linker does in symbol names
// (cmd/internal/objabi.PathToPrefix): control characters, spaces, '%',
// '"', non-ASCII bytes, and dots after the last slash become %xx, so
// gopkg.in/yaml.v3 is named gopkg.in/yaml%2ev3 at run time.
func pathToPrefix(path string) string {
	slash := strings.LastIndex(path, "/")
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c <= ' ' || (c == '.' && i > slash) || c == '%' || c == '"' || c >= 0x7F {
			fmt.Fprintf(&b, "%%%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
