package dashboard

import "github.com/gorilla/mux"

// registerWebhooks adds the webhooks pages.
func (d *Dashboard) registerWebhooks(r *mux.Router) {}
