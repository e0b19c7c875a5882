package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"shipd/platform/fault"
)

// MaxBodyBytes is the largest request body the API reads.
const MaxBodyBytes = 1 << 20

// Decode reads the JSON body of r into dst. A body that is not JSON, or not a
// JSON object, is a 400; a member dst has no field for (at any depth of
// its fields, see unknownMembers) and a value of the wrong type are a 422
// naming each such field.
func Decode(r *http.Request, dst any) error {
	body, err := readAll(r)
	if err != nil {
		return err
	}
	return decodeBody(body, dst)
}

// DecodeNone reads the body of a write that takes none (a cancel, a
// validation, a refresh): nothing, JSON null (what a client that sends its
// nil body as JSON sends), or a JSON object without members. A member sent
// is refused as an unknown one, not dropped.
func DecodeNone(r *http.Request) error {
	body, err := readAll(r)
	if trimmed := bytes.Trim(body, " \t\r\n"); err != nil || len(trimmed) == 0 || string(trimmed) == "null" {
		return err
	}
	return decodeBody(body, &struct{}{})
}

func readAll(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil // a request made in process without a body (the dashboard's)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fault.Invalid(fmt.Sprintf("The request body is larger than %d bytes.", MaxBodyBytes))
		}
		return nil, fault.Invalid("The request body could not be read.")
	}
	return body, nil
}

func decodeBody(body []byte, dst any) error {
	// JSON's whitespace only: TrimSpace would also take \v, \f and U+00A0,
	// which make the body no JSON at all.
	trimmed := bytes.Trim(body, " \t\r\n")
	if len(trimmed) == 0 {
		return fault.Invalid("The request body is empty; send a JSON object.")
	}
	if trimmed[0] != '{' {
		return fault.Invalid("The request body must be a JSON object.")
	}
	// Before the JSON: a body that is not text is a 400 even where it would
	// also have a wrong type.
	if problem := encodingProblem(body); problem != "" {
		return fault.Invalid(problem)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var typeErr *json.UnmarshalTypeError
	if err := dec.Decode(dst); err != nil && (!errors.As(err, &typeErr) || typeErr.Field == "") {
		return fault.Invalid("The request body is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fault.Invalid("The request body must hold exactly one JSON object.")
	}
	if problem := escapeProblem(trimmed); problem != "" {
		return fault.Invalid(problem)
	}
	fields := fault.FieldErrors{}
	unknownMembers(trimmed, reflect.TypeOf(dst), "", fields)
	if typeErr != nil {
		fields.Add(typeErr.Field, "must be "+jsonTypeName(typeErr.Type.Kind().String()))
	}
	return fields.Err()
}

func jsonTypeName(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	default:
		return "of another type"
	}
}

// OptionalObject decodes a free-form JSON object field (metadata, external
// data). Absent or null is nil; anything but an object adds "must be an
// object" to errs under field.
func OptionalObject(raw json.RawMessage, field string, errs fault.FieldErrors) map[string]any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || out == nil {
		errs.Add(field, "must be an object")
	}
	return out
}
