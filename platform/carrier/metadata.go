package carrier

import (
	"encoding/json"
	"strconv"
)

// The bounds of a client's own object (a shipment's metadata, a tracking
// parcel's external_data): it is stored with the resource, sent back in
// every answer and copied into every event and webhook delivery, so it is
// kept to what a shop needs to find its order again.
const (
	MaxMetadataBytes = 16 * 1024 // as compact JSON
	MaxMetadataDepth = 8         // the object itself is level 1
)

// MetadataProblem says what is wrong with a client's own object, or "".
func MetadataProblem(m map[string]any) string {
	if depth(m, 1) > MaxMetadataDepth {
		return "must nest at most " + strconv.Itoa(MaxMetadataDepth) + " levels of objects and arrays"
	}
	// A client's object is decoded JSON and always encodes; a value JSON
	// cannot write (a Go caller's) is the repository's to refuse on save.
	if b, err := json.Marshal(m); err == nil && len(b) > MaxMetadataBytes {
		return "must be at most " + strconv.Itoa(MaxMetadataBytes) + " bytes as JSON (it is " + strconv.Itoa(len(b)) + ")"
	}
	return ""
}

// depth is the nesting of v at level, counted no further than one past
// MaxMetadataDepth.
func depth(v any, level int) int {
	var children []any
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			children = append(children, c)
		}
	case []any:
		children = t
	default:
		return level - 1 // a value, no level of its own
	}
	if level > MaxMetadataDepth {
		return level
	}
	deepest := level
	for _, c := range children {
		if d := depth(c, level+1); d > deepest {
			deepest = d
			if d > MaxMetadataDepth {
				return d
			}
		}
	}
	return deepest
}
