package domain

// Event is something that happened to a pickup or a manifest, published
// with the change that caused it.
type Event interface {
	EventType() string
	EventStream() string
}
