package domain

// Status is where a shipment stands:
// pending → created → shipped → delivered | returned; created → cancelled.
type Status string

// The shipment statuses.
const (
	StatusPending   Status = "pending"
	StatusCreated   Status = "created"
	StatusShipped   Status = "shipped"
	StatusDelivered Status = "delivered"
	StatusCancelled Status = "cancelled"
	StatusReturned  Status = "returned"
)

// ValidStatus reports whether s names a status.
func ValidStatus(s string) bool {
	switch Status(s) {
	case StatusPending, StatusCreated, StatusShipped, StatusDelivered, StatusCancelled, StatusReturned:
		return true
	}
	return false
}
