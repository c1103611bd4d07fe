package discover

import "testing"

// cloudapi's pacer lets at most the burst and a minute's refill through in any minute
// (TestNoMinuteEverSeesMoreRequestsThanItsBurstAndRefill); discover's pace must fit DigitalOcean's.
func TestDiscoversPaceFitsDigitalOceansLimitOf250RequestsAMinute(t *testing.T) {
	if n := DefaultPerMinute + DefaultBurst; n > 250 {
		t.Errorf("the burst and a minute's refill are %d requests, DigitalOcean allows 250", n)
	}
	if p := newPacer(0, DefaultBurst).String(); p != "266.666666ms between requests" {
		t.Errorf("an unset pace is %s, want DefaultPerMinute's", p)
	}
}
