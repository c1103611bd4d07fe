package fakedo

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// hourly is DigitalOcean's count of a token's requests over the last hour: every answer says the
// limit, how many of the last hour's requests are left and when the oldest stops counting (the
// RateLimit-Limit, -Remaining and -Reset headers godo reads), and a request past the limit is
// answered 429 too_many_requests. The fake counts only when a test asks (CountHourly), so that a
// test or a bench that sends more than 5,000 requests an hour is not refused.
type hourly struct {
	limit int
	// sent are the times of each token's requests of the last hour, oldest first.
	sent map[string][]time.Time
}

// CountHourly has the fake count each token's requests as DigitalOcean does, limit an hour
// (DigitalOcean's is 5,000), and say the count in every answer's headers.
func (d *DO) CountHourly(limit int) {
	d.s.srv.Mu.Lock()
	defer d.s.srv.Mu.Unlock()
	d.s.hourly = &hourly{limit: limit, sent: map[string][]time.Time{}}
}

// LeaveHourly has token's last hour hold requests, as another user of the token would leave it,
// so that remaining are left now (none, when more than the limit): the oldest sent an hour ago
// less quiet, so that none stops counting before quiet has passed, and the rest spread evenly
// from it to now. It counts DigitalOcean's 5,000 an hour when CountHourly was not called.
func (d *DO) LeaveHourly(token string, remaining int, quiet time.Duration) {
	d.s.srv.Mu.Lock()
	defer d.s.srv.Mu.Unlock()
	if d.s.hourly == nil {
		d.s.hourly = &hourly{limit: 5000, sent: map[string][]time.Time{}}
	}
	h := d.s.hourly
	now, n := time.Now(), max(h.limit-max(remaining, 0), 0)
	oldest, span := now.Add(-time.Hour+quiet), time.Hour-quiet
	sent := make([]time.Time, n)
	for i := range sent {
		sent[i] = oldest.Add(time.Duration(i) * span / time.Duration(n))
	}
	h.sent[token] = sent
}

// take counts a request of token at now and writes the headers that say the count; false when
// the hour's requests are spent (nothing is counted then, and the caller answers 429).
func (h *hourly) take(w http.ResponseWriter, token string, now time.Time) bool {
	sent := h.sent[token]
	for len(sent) > 0 && !sent[0].After(now.Add(-time.Hour)) {
		sent = sent[1:]
	}
	ok := len(sent) < h.limit
	if ok {
		sent = append(sent, now)
	}
	h.sent[token] = sent
	reset := now.Add(time.Hour)
	if len(sent) > 0 {
		reset = sent[0].Add(time.Hour)
	}
	w.Header().Set("RateLimit-Limit", strconv.Itoa(h.limit))
	w.Header().Set("RateLimit-Remaining", strconv.Itoa(h.limit-len(sent)))
	w.Header().Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	return ok
}

// bearer is the token r carries, as godo sends it.
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return token
}
