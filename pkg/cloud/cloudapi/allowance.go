package cloudapi

import (
	"net/http"
	"strconv"
	"time"
)

// Allowance is what an answer says of its account's requests an hour: DigitalOcean's
// RateLimit-Limit (the requests an hour), RateLimit-Remaining (those left of the last hour's) and
// RateLimit-Reset (when the oldest request of the hour stops counting, in Unix seconds), which
// every answer of its API carries and godo reads as its Rate (godo.go, populateRate). Civo's
// answers say none of it. The count is the token's: every request sent with it, clusterplane's
// and its provider plugins' alike, as well as anything else using it.
type Allowance struct {
	Limit, Remaining int
	// Reset is when the oldest request of the hour stops counting; At is when the answer came.
	Reset, At time.Time
}

// allowanceOf reads the headers of an answer that came at; nil when they do not say.
func allowanceOf(h http.Header, at time.Time) *Allowance {
	limit, err1 := strconv.Atoi(h.Get("RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("RateLimit-Remaining"))
	if err1 != nil || err2 != nil || limit <= 0 || remaining < 0 {
		return nil
	}
	a := &Allowance{Limit: limit, Remaining: remaining, At: at}
	if reset, err := strconv.ParseInt(h.Get("RateLimit-Reset"), 10, 64); err == nil && reset > 0 {
		a.Reset = time.Unix(reset, 0)
	}
	return a
}
