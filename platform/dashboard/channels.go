package dashboard

import "github.com/gorilla/mux"

// registerChannels adds the channels pages.
func (d *Dashboard) registerChannels(r *mux.Router) {}
