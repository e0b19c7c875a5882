package dashboard

import "github.com/gorilla/mux"

// registerShipments adds the shipments pages.
func (d *Dashboard) registerShipments(r *mux.Router) {}
