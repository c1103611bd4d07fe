package fakedo

import "time"

// SetClock makes the upgrades read the time from now instead of the wall clock, so that a test
// moves time on by hand.
func (d *DO) SetClock(now func() time.Time) { d.s.set(func() { d.s.clock = now }) }
