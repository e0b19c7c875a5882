// Package messaging is the service's event and command plumbing: Watermill
// over PostgreSQL, with the publisher bound to the writer's transaction
// (transactional outbox) and one consumer group per handler.
package messaging

import (
	"fmt"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"

	"shipd/platform/ids"
)

// Event is a fact another module may react to. EventType is also its topic,
// e.g. "shipping_channel.created" (one topic per event type).
type Event interface {
	EventType() string
}

// Command asks a module to act. CommandName is its topic after "command.".
type Command interface {
	CommandName() string
}

// marshaler names every message by its event type or command name and gives
// it an "evt_" id, which receivers see as the event id.
var marshaler = cqrs.JSONMarshaler{
	NewUUID:      func() string { return ids.New(ids.Event) },
	GenerateName: messageName,
}

func messageName(v any) string {
	switch m := v.(type) {
	case Event:
		return m.EventType()
	case Command:
		return CommandTopic(m.CommandName())
	default:
		panic(fmt.Sprintf("messaging: %T is neither an Event nor a Command", v))
	}
}

// CommandTopic is the topic commands of that name travel on.
func CommandTopic(name string) string { return "command." + name }
