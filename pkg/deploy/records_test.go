package deploy_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// recordReading is a backend that reads its stacks' records itself (Backend.ReadsRecords), here by
// asking the stack, as the CLI would say them, and counts the stacks status opens.
type recordReading struct {
	stackstate.Backend
	unread error // returned by Records instead, when set
	opened int
}

func (r *recordReading) Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	r.opened++
	return r.Backend.Open(ctx, project, stack, program)
}

var _ stackstate.Backend = (*recordReading)(nil)

// ReadsRecords is true: Records below reads them, unless told it cannot.
func (r *recordReading) ReadsRecords() bool { return true }

func (r *recordReading) Records(ctx context.Context, project, stack string) (stackstate.Records, error) {
	if r.unread != nil {
		return stackstate.Records{}, r.unread
	}
	s, err := r.Backend.Open(ctx, project, stack, nil)
	if err != nil {
		return stackstate.Records{}, err
	}
	defer s.Close()
	st, err := s.State(ctx)
	if err != nil {
		return stackstate.Records{}, err
	}
	last, err := s.LastUpdate(ctx)
	return stackstate.Records{State: st.Raw, Last: last}, err
}

func (r *recordReading) LastUpdate(ctx context.Context, project, stack string) (*stackstate.Update, error) {
	rec, err := r.Records(ctx, project, stack)
	return rec.Last, err
}

func TestStatusReadsTheRecordsWithoutOpeningAStackAndSaysOnceWhenItCannot(t *testing.T) {
	tests := []struct {
		name   string
		unread error
		opened int    // stacks status opened, for two stacks
		said   string // what the run was told, once
	}{
		{"a backend whose records are read", nil, 0, ""},
		{"a backend whose records cannot be read", errors.Wrap(stackstate.ErrRecordsUnread, "it is no folder"), 2,
			"status reads this backend's records through the Pulumi CLI, one stack at a time: it is no folder: " +
				"the backend's records cannot be read directly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, _ := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			want := d.Status(ctx, c, deploy.StatusOptions{})

			r := &recordReading{Backend: d.Backend, unread: tt.unread}
			var said []string
			reader := &deploy.Deployer{Backend: r, Say: func(line string) { said = append(said, line) }}
			got := reader.Status(ctx, c, deploy.StatusOptions{})
			reader.Status(ctx, c, deploy.StatusOptions{})
			if !reflect.DeepEqual(got.Report, want.Report) {
				t.Errorf("status from the records %+v, through the stack %+v", got.Report, want.Report)
			}
			if r.opened != tt.opened {
				t.Errorf("status of two stacks opened %d, want %d", r.opened, tt.opened)
			}
			if wantSaid := []string{tt.said}; tt.said == "" && len(said) > 0 || tt.said != "" && !reflect.DeepEqual(said, wantSaid) {
				t.Errorf("said %q, want %q once", said, tt.said)
			}
		})
	}
}
