package api

import (
	"context"
	"database/sql"
	"net/http"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// refuseLostStack refuses to delete an object whose stack a check found made again outside the
// API: destroying it would destroy what someone else made. The API destroys only stacks its
// workers made (docs/api.md, Ownership).
func refuseLostStack(ctx context.Context, tx *sql.Tx, o store.Object) error {
	mark, ok, err := store.LostStack(ctx, tx, o.ID)
	if err != nil || !ok || mark.Lost == "" {
		return err
	}
	return &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: "stack " + mark.Stack + " is no longer this " +
		o.Type + "'s: " + mark.Lost + ". The API destroys only stacks it made, so it leaves this one alone: destroy it " +
		"with clusterplane destroy if it is to go; once a check finds it gone, deleting the " + o.Type + " forgets it"}
}
