// Package jsonfields lists the members encoding/json reads and writes for a
// struct type, so that what judges a request body's members (httpapi) and
// what describes an event's shape (messaging) agree with encoding/json and
// with each other.
package jsonfields

import (
	"iter"
	"reflect"
	"strings"
)

// Field is one member: its JSON name, its Go type, and how deep in embedded
// structs it was declared (0 for the type's own fields). Where two share a
// name, encoding/json takes the shallower.
type Field struct {
	Name  string
	Type  reflect.Type
	Depth int
}

// Of yields the members of struct type t as encoding/json sees them:
// exported fields named by their tag or their Go name, "-" left out, and the
// fields of an embedded struct without a tag flattened in, deeper.
func Of(t reflect.Type) iter.Seq[Field] {
	return func(yield func(Field) bool) { walk(t, 0, yield) }
}

func walk(t reflect.Type, depth int, yield func(Field) bool) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				if !walk(inner, depth+1, yield) {
					return false
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !yield(Field{Name: name, Type: f.Type, Depth: depth}) {
			return false
		}
	}
	return true
}
