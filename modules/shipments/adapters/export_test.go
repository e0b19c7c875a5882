package adapters

import "github.com/jmoiron/sqlx"

// NewShipmentListForTest returns the list projection and its reader with
// blocks of the given size and searches that count at most probe matches or
// non-matches before counting in full, so a test with few shipments crosses
// many blocks and takes every way of counting a search.
func NewShipmentListForTest(db *sqlx.DB, block int64, probe int) (*ShipmentListProjection, *ShipmentListReader) {
	return &ShipmentListProjection{db: db, block: block}, &ShipmentListReader{db: db, block: block, probe: probe}
}
