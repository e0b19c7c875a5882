package domain

// Status is where a channel stands in its lifecycle:
// draft → (validate) → active | error; inactive when a user pauses it.
type Status string

// The channel statuses.
const (
	StatusDraft    Status = "draft"
	StatusActive   Status = "active"
	StatusError    Status = "error"
	StatusInactive Status = "inactive"
)

// Statuses lists every status, for filters and messages.
var Statuses = []Status{StatusDraft, StatusActive, StatusError, StatusInactive}

// ValidStatus reports whether s names a status.
func ValidStatus(s string) bool {
	for _, st := range Statuses {
		if string(st) == s {
			return true
		}
	}
	return false
}
