package upgrade

import (
	"fmt"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// WindowLength is how long a maintenance window stays open: DigitalOcean's are 4 hours (its API's
// maintenance_policy duration).
const WindowLength = 4 * time.Hour

// Window is a cluster's weekly maintenance window as its manifest writes it: Day is "any" or a
// weekday in lower case, Start "HH:MM" in UTC.
type Window struct {
	Day, Start string
}

// windowOf is the maintenance window of a manifest's spec: the one it writes, else DigitalOcean's
// default (any day at 00:00 UTC) for a kind that has the field, else nil: a cloud without
// maintenance windows.
func windowOf(spec protoreflect.Message) *Window {
	if spec == nil {
		return nil
	}
	fd := spec.Descriptor().Fields().ByJSONName(kindfield.SpecMaintenanceWindow)
	if fd == nil {
		return nil
	}
	if !spec.Has(fd) {
		return &Window{Day: "any", Start: "00:00"}
	}
	w := spec.Get(fd).Message()
	return &Window{Day: text(w, kindfield.MaintenanceWindowDay), Start: text(w, kindfield.MaintenanceWindowStartTime)}
}

// Opens tells whether the window is open at now, and if not, when it next opens.
func (w Window) Opens(now time.Time) (open bool, at time.Time, err error) {
	start, err := time.Parse("15:04", w.Start)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("maintenance window start %q: want HH:MM", w.Start)
	}
	now = now.UTC()
	day := strings.ToLower(w.Day)
	// The window's openings from two days ago (one that opened yesterday may still be open) on,
	// in order: the first that has not closed is open now or the next.
	for d := -2; d <= 8; d++ {
		date := now.AddDate(0, 0, d)
		opens := time.Date(date.Year(), date.Month(), date.Day(), start.Hour(), start.Minute(), 0, 0, time.UTC)
		if day != "any" && strings.ToLower(opens.Weekday().String()) != day {
			continue
		}
		if now.Before(opens.Add(WindowLength)) {
			return !now.Before(opens), opens, nil
		}
	}
	return false, time.Time{}, fmt.Errorf("maintenance window day %q: want any or a weekday", w.Day)
}
