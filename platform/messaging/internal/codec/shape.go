package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"shipd/platform/jsonfields"
)

// Shape describes the JSON a message of v's type is written as, one line per
// field path and its JSON kind, sorted: what a stored message of its version
// holds. Two builds that give a type the same shape read each other's
// messages; a change of shape needs a new version and an upcaster, or the
// history already stored would be misread (see eventtest.CheckShapes).
func Shape(v any) string {
	var lines []string
	describe(reflect.TypeOf(v), "", &lines, map[reflect.Type]bool{})
	slices.Sort(lines)
	return fmt.Sprintf("%s v%d\n%s\n", Name(v), Version(v), strings.Join(lines, "\n"))
}

var (
	timeType      = reflect.TypeOf(time.Time{})
	rawType       = reflect.TypeOf(json.RawMessage{})
	marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

// describe appends the lines of type t at path.
func describe(t reflect.Type, path string, lines *[]string, seen map[reflect.Type]bool) {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	kind, leaf := jsonKind(t)
	if nullable {
		kind += "|null"
	}
	if path != "" {
		*lines = append(*lines, path+" "+kind)
	}
	switch {
	case leaf:
		return
	case t.Kind() == reflect.Struct:
		if seen[t] {
			*lines = append(*lines, path+" (recursive)")
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for f := range jsonfields.Of(t) {
			describe(f.Type, join(path, f.Name), lines, seen)
		}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 {
			describe(t.Elem(), path+"[]", lines, seen)
		}
	case t.Kind() == reflect.Map:
		describe(t.Elem(), path+"{}", lines, seen)
	}
}

// jsonKind is the JSON kind t is written as; leaf when t writes itself
// (time, raw JSON, its own MarshalJSON), so its fields are not described.
func jsonKind(t reflect.Type) (kind string, leaf bool) {
	switch {
	case t == timeType:
		return "time", true
	case t == rawType:
		return "json", true
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return "custom(" + t.String() + ")", true
	}
	switch t.Kind() {
	case reflect.String:
		return "string", false
	case reflect.Bool:
		return "boolean", false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number", false
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string(base64)", false
		}
		return "array", false
	case reflect.Map, reflect.Struct:
		return "object", false
	case reflect.Interface:
		return "any", false
	}
	return t.Kind().String(), false
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
