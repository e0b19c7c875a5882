package domain

import (
	"reflect"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

// equalJSONMaps compares decoded JSON objects (metadata).
func equalJSONMaps(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }
