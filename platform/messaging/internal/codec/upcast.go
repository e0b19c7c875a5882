package codec

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/ThreeDotsLabs/watermill/message"
)

// An Upcaster rewrites the JSON payload of one event type from version From
// to From+1. Stored events are never rewritten: they are brought up to date
// each time they are read, so a projection rebuild replays old history with
// today's code.
type Upcaster struct {
	EventType string
	From      int
	Upcast    func(payload []byte) ([]byte, error)
}

var upcasters = struct {
	sync.RWMutex
	by map[string]map[int]Upcaster
}{by: map[string]map[int]Upcaster{}}

// RegisterUpcaster adds u; a module registers its own from its contract
// package's init. Registering the same step twice is a programming error.
func RegisterUpcaster(u Upcaster) {
	upcasters.Lock()
	defer upcasters.Unlock()
	steps := upcasters.by[u.EventType]
	if steps == nil {
		steps = map[int]Upcaster{}
		upcasters.by[u.EventType] = steps
	}
	if _, dup := steps[u.From]; dup {
		panic(fmt.Sprintf("messaging: two upcasters of %s from version %d", u.EventType, u.From))
	}
	steps[u.From] = u
}

// upcast brings payload of the given type from version from to version to.
func upcast(eventType string, from, to int, payload []byte) ([]byte, error) {
	if from > to {
		return nil, fmt.Errorf("%s version %d is newer than this build reads (%d)", eventType, from, to)
	}
	upcasters.RLock()
	steps := upcasters.by[eventType]
	upcasters.RUnlock()
	for v := from; v < to; v++ {
		u, ok := steps[v]
		if !ok {
			return nil, fmt.Errorf("no upcaster of %s from version %d", eventType, v)
		}
		var err error
		if payload, err = u.Upcast(payload); err != nil {
			return nil, fmt.Errorf("upcasting %s from version %d: %w", eventType, v, err)
		}
	}
	return payload, nil
}

// CanUpcast reports whether stored payloads of eventType at version from are
// brought up to version to when read.
func CanUpcast(eventType string, from, to int) bool {
	upcasters.RLock()
	defer upcasters.RUnlock()
	for v := from; v < to; v++ {
		if _, ok := upcasters.by[eventType][v]; !ok {
			return false
		}
	}
	return true
}

// versionedMarshaler is Watermill's JSON marshaler plus the version stamp
// and the upcasters.
type versionedMarshaler struct {
	cqrs.JSONMarshaler
}

func (m versionedMarshaler) Marshal(v any) (*message.Message, error) {
	msg, err := m.JSONMarshaler.Marshal(v)
	if err != nil {
		return nil, err
	}
	msg.Metadata.Set(MetadataVersion, strconv.Itoa(Version(v)))
	if k, ok := v.(Keyed); ok {
		msg.Metadata.Set(MetadataPartitionKey, storableKey(k.PartitionKey()))
	}
	return msg, nil
}

func (m versionedMarshaler) Unmarshal(msg *message.Message, v any) error {
	stored, err := messageVersion(msg)
	if err != nil {
		return err
	}
	payload := msg.Payload
	if want := Version(v); stored != want {
		if payload, err = upcast(m.NameFromMessage(msg), stored, want, payload); err != nil {
			return fmt.Errorf("message %s: %w", msg.UUID, err)
		}
	}
	// Decode a copy: the message is redelivered as stored if handling fails.
	up := message.NewMessage(msg.UUID, payload)
	up.Metadata = msg.Metadata
	return m.JSONMarshaler.Unmarshal(up, v)
}
