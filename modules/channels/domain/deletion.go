package domain

import "time"

// Deleted marks the channel's last change, its deletion (a version past
// the last, so readers drop it), and asks for the tracking of its parcels
// to stop with it: a check through a channel that is gone could only fail.
// The repository sends the stop with the deletion (TakeTrackingStop), so
// no check is left scheduled for a channel that is gone.
func (c *Channel) Deleted(now time.Time) {
	c.Touch(now)
	c.stopTracking = true
}

// TakeTrackingStop reports, once, whether the change asked for the
// tracking of the channel's parcels to stop.
func (c *Channel) TakeTrackingStop() bool {
	stop := c.stopTracking
	c.stopTracking = false
	return stop
}
