package httpapi

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"shipd/platform/fault"

	"shipd/platform/jsonfields"
)

// A member of a request body that its port's request type has no field for
// is refused, not dropped: "cash_on_delivery_amout" dropped would ship a
// parcel without its cash on delivery (issue 30). The request type is the
// statement of what a body may hold: Decode walks the body beside it, at
// every depth of its fixed structure. Free-form members (metadata,
// external_data, a channel's settings, whose keys the provider's schema
// judges) are declared as maps of any or json.RawMessage, and are not
// walked; a member a port reads later by hand is declared as a Raw of what
// it holds, and is walked.

// Raw is a member of a request body that its port reads later, by hand
// (each item of a list on its own, so that every item's problem is named),
// and whose shape T states: Decode refuses an unknown member inside it as
// anywhere else. It holds the member's JSON as sent, like json.RawMessage
// (a JSON null as the four bytes "null"; absent, nothing).
type Raw[T any] []byte

// UnmarshalJSON keeps a copy of the member's JSON.
func (r *Raw[T]) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// MarshalJSON answers the JSON kept, or null.
func (r Raw[T]) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

func (Raw[T]) shape() reflect.Type { return reflect.TypeFor[T]() }

type shaped interface{ shape() reflect.Type }

var (
	shapedType    = reflect.TypeFor[shaped]()
	unmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshal = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// unknownMembers adds to errs every member of the JSON value raw, which
// is at path in the body, that t has no field for, and walks on into the
// members t knows. A value of another JSON type than t's is left alone:
// decoding names that problem.
func unknownMembers(raw []byte, t reflect.Type, path string, errs fault.FieldErrors) {
	t = declared(t)
	switch t.Kind() {
	case reflect.Struct:
		if custom(t) {
			return
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return
		}
		known := fieldsOf(t)
		for name, value := range members {
			at := join(path, name)
			ft, ok := known.types[name]
			if !ok {
				errs.Add(at, known.unknown(name))
				continue
			}
			unknownMembers(value, ft, at, errs)
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 || custom(t) || !walked(t.Elem()) {
			return // bytes (json.RawMessage: free-form), or items with no members to check
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		for i, item := range items {
			unknownMembers(item, t.Elem(), join(path, strconv.Itoa(i)), errs)
		}
	case reflect.Map:
		if custom(t) || !walked(t.Elem()) {
			return // free-form: map[string]any
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return
		}
		for name, value := range members {
			unknownMembers(value, t.Elem(), join(path, name), errs)
		}
	}
}

// declared is the type whose members a value of t may hold: a pointer's
// element, a Raw's shape.
func declared(t reflect.Type) reflect.Type {
	for {
		switch {
		case t.Implements(shapedType):
			t = reflect.Zero(t).Interface().(shaped).shape()
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		default:
			return t
		}
	}
}

// walked reports whether a value of t can hold members to check.
func walked(t reflect.Type) bool {
	switch k := declared(t).Kind(); k {
	case reflect.Struct, reflect.Map:
		return true
	case reflect.Slice, reflect.Array:
		return declared(t).Elem().Kind() != reflect.Uint8 && walked(declared(t).Elem())
	default:
		return false
	}
}

// custom reports whether t reads its own JSON: what it accepts is its own
// business, not a set of members.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(unmarshaler) || p.Implements(textUnmarshal)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// members are the JSON names of a struct's fields, as encoding/json reads
// them (exported fields, the tag's name, embedded structs' fields promoted;
// of two fields of one name the shallower one), in declaration order.
type members struct {
	names []string
	types map[string]reflect.Type
	depth map[string]int
}

var membersOf sync.Map // reflect.Type -> members

func fieldsOf(t reflect.Type) members {
	if m, ok := membersOf.Load(t); ok {
		return m.(members)
	}
	m := members{types: map[string]reflect.Type{}, depth: map[string]int{}}
	m.collect(t)
	membersOf.Store(t, m)
	return m
}

func (m *members) collect(t reflect.Type) {
	for f := range jsonfields.Of(t) {
		if d, seen := m.depth[f.Name]; seen && d <= f.Depth {
			continue
		} else if !seen {
			m.names = append(m.names, f.Name)
		}
		m.types[f.Name], m.depth[f.Name] = f.Type, f.Depth
	}
}

// unknown is the problem of a member name the fields do not have: the one
// it most likely misspells, or the ones there are.
func (m members) unknown(name string) string {
	if len(m.names) == 0 {
		return "unknown field; this request takes no fields"
	}
	if near := m.nearest(name); near != "" {
		return "unknown field; did you mean " + near + "?"
	}
	return "unknown field; the fields here are: " + strings.Join(m.names, ", ")
}

// nearest is the field name that name differs from only in case, or by at
// most two letters typed wrong, left out, added or swapped ("amout",
// "weigth"); "" when none is, or two are equally near.
func (m members) nearest(name string) string {
	best, bestDistance, tie := "", 3, false
	for _, known := range m.names {
		d := distance(strings.ToLower(name), known)
		if d >= len(known)/2 && !strings.EqualFold(name, known) {
			continue // a short name is not "near" a word it mostly differs from
		}
		switch {
		case d < bestDistance:
			best, bestDistance, tie = known, d, false
		case d == bestDistance:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// distance is the optimal string alignment distance of a and b: edits of
// one byte, and swaps of two neighbouring ones, each count one.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			rows[i][j] = min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				rows[i][j] = min(rows[i][j], rows[i-2][j-2]+1)
			}
		}
	}
	return rows[len(a)][len(b)]
}
