package httpapi

import (
	"maps"
	"strings"

	"shipd/platform/fault"
)

// Refusal answers a body the port could not read in full: its shape
// problems (shape: a field of the wrong JSON type or form, found while
// decoding) and what the domain's rules say of the rest (rules: the
// validation fault of the domain's check, or nil), so that one answer names
// every problem, as the API always has. A rule's problem at or under a path
// of shape, or of unread (fields left unread, such as a list item of the
// wrong form), is left out: the rule saw a placeholder there, not what was
// sent. A rules error of another kind is returned as it is.
func Refusal(shape fault.FieldErrors, rules error, unread ...string) error {
	all := fault.FieldErrors(maps.Clone(map[string][]string(shape)))
	if rules != nil {
		fe, ok := fault.As(rules)
		if !ok || fe.Kind != fault.KindValidation {
			return rules
		}
		for path, msgs := range fe.Fields {
			if !under(path, shape, unread) {
				all[path] = append(all[path], msgs...)
			}
		}
	}
	return all.Err()
}

func under(path string, shape fault.FieldErrors, unread []string) bool {
	for p := range shape {
		if path == p || strings.HasPrefix(path, p+".") {
			return true
		}
	}
	for _, p := range unread {
		if path == p || strings.HasPrefix(path, p+".") {
			return true
		}
	}
	return false
}
