package shipd

import openapi_types "github.com/oapi-codegen/runtime/types"

// Date is a calendar date of the API (a pickup's date, the date filters of
// pickups and manifests: "2006-01-02"), so that a caller builds one as
// shipd.Date{Time: t} without importing the generator's runtime. Only t's
// year, month and day are sent.
type Date = openapi_types.Date
