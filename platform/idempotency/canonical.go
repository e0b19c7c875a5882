package idempotency

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// canonicalJSON rewrites a JSON body so that two bodies a client means as
// the same request compare equal: no insignificant whitespace, object
// members sorted by name, strings re-escaped one way. Numbers keep their
// text ("1.0" and "1" may mean different things to a decoder with limits).
// It reports false for anything that is not one well-formed JSON value of
// valid UTF-8, or an object naming a member twice (which decoders read in
// different ways); such a body is compared byte for byte.
func canonicalJSON(body []byte) ([]byte, bool) {
	if !utf8.Valid(body) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out bytes.Buffer
	if err := writeCanonical(dec, &out); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data after the value
	}
	return out.Bytes(), true
}

var errDuplicateMember = errors.New("duplicate member")

func writeCanonical(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return writeObject(dec, out)
		case '[':
			return writeArray(dec, out)
		}
		return errors.New("unexpected delimiter")
	case json.Number:
		out.WriteString(t.String())
	default: // string, bool, nil
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out.Write(b)
	}
	return nil
}

func writeObject(dec *json.Decoder, out *bytes.Buffer) error {
	type member struct {
		name  string
		value []byte
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var value bytes.Buffer
		if err := writeCanonical(dec, &value); err != nil {
			return err
		}
		members = append(members, member{name: name, value: value.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // '}'
		return err
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.name, b.name) })
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			if members[i-1].name == m.name {
				return errDuplicateMember
			}
			out.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		out.Write(name)
		out.WriteByte(':')
		out.Write(m.value)
	}
	out.WriteByte('}')
	return nil
}

func writeArray(dec *json.Decoder, out *bytes.Buffer) error {
	out.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := writeCanonical(dec, out); err != nil {
			return err
		}
	}
	out.WriteByte(']')
	_, err := dec.Token() // ']'
	return err
}
