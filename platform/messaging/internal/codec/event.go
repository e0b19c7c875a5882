// Package codec is what a message is: the Event or Command it carries, its
// name and payload version in the metadata, and the marshaler that writes
// it and reads it back, older versions brought up to date by the upcasters.
package codec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/ThreeDotsLabs/watermill/message"

	"shipd/platform/ids"
)

// Event is a fact another module may react to, e.g. "shipping_channel.created"
// on the stream "channels". Events of one stream are read in the order their
// transactions wrote them.
type Event interface {
	EventType() string
	EventStream() string
}

// VersionedEvent is an event whose payload changed shape: EventVersion is the
// shape this code writes. Events without it are version 1.
type VersionedEvent interface {
	EventVersion() int
}

// Command asks a module to act, e.g. "tracking.track_shipment_parcels". It
// travels on the command stream of the module that handles it.
type Command interface {
	CommandName() string
	CommandStream() string
}

// Metadata keys every message carries.
const (
	// MetadataName is the event type or command name (Watermill's cqrs key).
	MetadataName = "name"
	// MetadataVersion is the payload's shape, "1" when absent.
	MetadataVersion = "version"
	// MetadataPartitionKey is the aggregate a message is about: the bus
	// hands every message of one key to the same partition of a consumer
	// group, so one aggregate's messages keep their order (ADR 0050).
	MetadataPartitionKey = "partition_key"
)

// storableKey is key as every store of metadata takes it: PostgreSQL's
// text and jsonb refuse U+0000 and bytes that are not UTF-8 (an id a
// client sent could hold them; the message must still be set aside as a
// dead letter), so those become U+FFFD, the same key each time.
func storableKey(key string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(key, "\uFFFD"), "\x00", "\uFFFD")
}

// Keyed is an event or command about one aggregate: PartitionKey is the
// aggregate's id. A message that is not Keyed goes to partition 0.
type Keyed interface {
	PartitionKey() string
}

// Marshaler names every message by its event type or command name, stamps
// the payload's version and gives it an "evt_" id, which receivers see as the
// event id. Reading, it brings older versions up to date (upcasters).
var Marshaler = versionedMarshaler{cqrs.JSONMarshaler{
	NewUUID:      func() string { return ids.New(ids.Event) },
	GenerateName: Name,
}}

// Name is the event type or command name of v.
func Name(v any) string {
	switch m := v.(type) {
	case Event:
		return m.EventType()
	case Command:
		return m.CommandName()
	default:
		panic(fmt.Sprintf("messaging: %T is neither an Event nor a Command", v))
	}
}

// Version is the payload version v is written with.
func Version(v any) int {
	if e, ok := v.(VersionedEvent); ok {
		return e.EventVersion()
	}
	return 1
}

// messageVersion is the payload version msg says it has.
func messageVersion(msg *message.Message) (int, error) {
	s := msg.Metadata.Get(MetadataVersion)
	if s == "" {
		return 1, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("message %s: version %q is not a positive number", msg.UUID, s)
	}
	return v, nil
}
