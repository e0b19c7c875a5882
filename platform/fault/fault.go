// Package fault holds the typed errors that application and domain code
// return so that one place (httpapi) turns them into HTTP answers. It
// imports only the standard library, which is why domain packages may use it.
package fault

import (
	"errors"
	"maps"
	"sort"
	"strings"
)

// Kind says what sort of failure an Error is; httpapi maps each to a status.
type Kind int

// The kinds of failure the API distinguishes.
const (
	KindInvalid     Kind = iota + 1 // 400: the request itself is malformed
	KindNotFound                    // 404
	KindForbidden                   // 403
	KindConflict                    // 409
	KindValidation                  // 422: fields break a rule
	KindUnavailable                 // 503: a carrier could not be reached
)

// Error is an expected failure with a stable code and, for validation
// failures, messages per dotted field path.
type Error struct {
	Kind    Kind
	Code    string // machine-readable, e.g. "validation_failed", "label_not_available"
	Message string
	Fields  map[string][]string
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+strings.Join(e.Fields[k], ", "))
	}
	return e.Message + " (" + strings.Join(parts, "; ") + ")"
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var fe *Error
	ok := errors.As(err, &fe)
	return fe, ok
}

// Is reports whether err carries a fault of kind k.
func Is(err error, k Kind) bool {
	fe, ok := As(err)
	return ok && fe.Kind == k
}

// NotFound says that a resource does not exist.
func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Code: "not_found", Message: what + " not found"}
}

// Forbidden says that the caller may not touch the resource.
func Forbidden(message string) *Error {
	return &Error{Kind: KindForbidden, Code: "forbidden", Message: message}
}

// Conflict says that the request clashes with the resource's current state.
func Conflict(code, message string) *Error {
	return &Error{Kind: KindConflict, Code: code, Message: message}
}

// Unavailable says that a carrier (or another outside party) did not answer.
func Unavailable(message string) *Error {
	return &Error{Kind: KindUnavailable, Code: "provider_unavailable", Message: message}
}

// Invalid says that the request is malformed (400).
func Invalid(message string) *Error {
	return &Error{Kind: KindInvalid, Code: "invalid_request", Message: message}
}

// Field says that one field breaks a rule (422).
func Field(path, reason string) *Error {
	return Fields(map[string][]string{path: {reason}})
}

// Fields says that several fields break rules (422).
func Fields(fields map[string][]string) *Error {
	return &Error{Kind: KindValidation, Code: "validation_failed", Message: "The given data was invalid.", Fields: fields}
}

// FieldErrors collects messages per field path while a request is checked.
type FieldErrors map[string][]string

// Add records reason for path.
func (f FieldErrors) Add(path, reason string) { f[path] = append(f[path], reason) }

// Merge adds every message of other under prefix (e.g. "settings.").
func (f FieldErrors) Merge(prefix string, other map[string][]string) {
	for k, v := range other {
		f[prefix+k] = append(f[prefix+k], v...)
	}
}

// Err returns nil when nothing was recorded, else a validation *Error.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Fields(maps.Clone(map[string][]string(f)))
}
