package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// pendingCreate is a resource an interrupted operation (a killed up) was creating: the cloud may
// hold it, but the stack has no id for it. The engine would create it again on the next up (a
// second cluster, the first one forgotten), and destroy would leave it in the cloud.
type pendingCreate struct {
	urn, typ, name string
}

// pendingCreates reads the stack's state (no lock needed) for creates left pending.
func pendingCreates(ctx context.Context, s auto.Stack) ([]pendingCreate, error) {
	state, err := s.Export(ctx)
	if err != nil {
		return nil, errors.Wrap(err, "read the stack's state")
	}
	return pendingIn(state)
}

// pendingIn reads the creates left pending in an exported state.
func pendingIn(state apitype.UntypedDeployment) ([]pendingCreate, error) {
	var deployment apitype.DeploymentV3
	if len(state.Deployment) > 0 && string(state.Deployment) != "null" {
		if err := json.Unmarshal(state.Deployment, &deployment); err != nil {
			return nil, errors.Wrap(err, "read the stack's state")
		}
	}
	var out []pendingCreate
	for _, op := range deployment.PendingOperations {
		if op.Type == apitype.OperationTypeCreating {
			out = append(out, pendingCreate{urn: string(op.Resource.URN), typ: string(op.Resource.Type),
				name: resource.URN(op.Resource.URN).Name()})
		}
	}
	return out, nil
}

// pendingCreatesError refuses an operation on a stack with pending creates.
type pendingCreatesError struct{ creates []pendingCreate }

func (e pendingCreatesError) Error() string {
	return fmt.Sprintf("the stack has %d pending create(s)", len(e.creates))
}

// refusePendingCreates returns a pendingCreatesError when the stack has pending creates.
func refusePendingCreates(ctx context.Context, s auto.Stack) error {
	creates, err := pendingCreates(ctx, s)
	if err == nil && len(creates) > 0 {
		err = pendingCreatesError{creates}
	}
	return err
}

// pendingAdvice says what the pending creates are and what to run, in order: the lock the killed
// operation left, then each create recorded with its cloud id (or dropped when the cloud has none).
func pendingAdvice(creates []pendingCreate, t target) string {
	var what []string
	for _, c := range creates {
		what = append(what, c.typ+" "+c.name)
	}
	imports := " --import-pending-create CLOUD_ID"
	if len(creates) > 1 {
		imports = ""
		for _, c := range creates {
			imports += " --import-pending-create '" + c.urn + "=CLOUD_ID'"
		}
	}
	return "an earlier operation on the stack was interrupted while creating " + strings.Join(what, ", ") +
		" and left it pending: the cloud may hold it, but the stack has no id for it, and another up would create it again. " +
		"If that operation is still running, wait for it to end. Otherwise: if the stack is locked, remove its lock with " +
		cancelCommand(t) + "; look the resource up in the cloud and run `clusterplane refresh " + t.file + imports +
		"` with its id (CLOUD_ID), or `clusterplane refresh " + t.file + " --clear-pending-creates` if the cloud has none; " +
		"then run this again"
}

// cancelCommand is the command that removes a stack's lock, in backticks: the Pulumi CLI finds
// the backend in PULUMI_BACKEND_URL, which clusterplane's default local backend must be given.
func cancelCommand(t target) string {
	command := "pulumi cancel --stack organization/" + t.key() + " --yes"
	if os.Getenv("PULUMI_BACKEND_URL") != "" {
		return "`" + command + "` (same PULUMI_BACKEND_URL)"
	}
	if url, err := backendURL(); err == nil {
		return "`PULUMI_BACKEND_URL=" + url + " " + command + "`"
	}
	return "`" + command + "`"
}

// importPending records pending creates with the cloud ids the user found (--import-pending-create
// [URN=]ID, a bare ID for the one pending create): each resource, as the engine was creating it,
// joins the stack's resources with its id, and the refresh that follows reads the rest from the
// cloud. The Pulumi CLI's own --import-pending-creates only drops them (3.259: the engine neither
// imports an "importing" operation nor keeps it), which would lose the cloud's resource.
func importPending(ctx context.Context, s auto.Stack, values []string) error {
	state, err := s.Export(ctx)
	if err != nil {
		return errors.Wrap(err, "read the stack's state")
	}
	creates, err := pendingIn(state)
	if err != nil {
		return err
	}
	ids := map[string]string{}
	for _, v := range values {
		urn, id := "", v
		if i := strings.LastIndex(v, "="); i >= 0 {
			urn, id = v[:i], v[i+1:]
		} else if len(creates) == 1 {
			urn = creates[0].urn
		} else {
			return errors.Errorf("--import-pending-create %s: the stack has %d pending creates; give URN=ID for each", v, len(creates))
		}
		found := false
		for _, c := range creates {
			found = found || c.urn == urn
		}
		if !found || id == "" {
			return errors.Errorf("--import-pending-create %s: the stack has no pending create %s", v, urn)
		}
		ids[urn] = id
	}
	// The state is edited as JSON, every field it does not touch kept as it is.
	var deployment map[string]json.RawMessage
	var resources []json.RawMessage
	var ops []map[string]json.RawMessage
	if err := json.Unmarshal(state.Deployment, &deployment); err != nil {
		return errors.Wrap(err, "read the stack's state")
	}
	if err := unmarshalIfAny(deployment["resources"], &resources); err != nil {
		return err
	}
	if err := unmarshalIfAny(deployment["pending_operations"], &ops); err != nil {
		return err
	}
	var kept []map[string]json.RawMessage
	for _, op := range ops {
		var res map[string]json.RawMessage
		var urn, typ string
		if json.Unmarshal(op["resource"], &res) != nil || json.Unmarshal(op["type"], &typ) != nil ||
			json.Unmarshal(res["urn"], &urn) != nil {
			return errors.New("read the stack's pending operations: an operation without a resource, type or URN")
		}
		id, ok := ids[urn]
		if typ != string(apitype.OperationTypeCreating) || !ok {
			kept = append(kept, op)
			continue
		}
		res["id"], _ = json.Marshal(id)
		data, err := json.Marshal(res)
		if err != nil {
			return err
		}
		resources = append(resources, data) // after its parent and provider, before nothing that needs it
	}
	if deployment["resources"], err = json.Marshal(resources); err != nil {
		return err
	}
	delete(deployment, "pending_operations")
	if len(kept) > 0 {
		if deployment["pending_operations"], err = json.Marshal(kept); err != nil {
			return err
		}
	}
	if state.Deployment, err = json.Marshal(deployment); err != nil {
		return err
	}
	return errors.Wrap(s.Import(ctx, state), "record the pending creates in the stack's state")
}

func unmarshalIfAny(data json.RawMessage, v any) error {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	return errors.Wrap(json.Unmarshal(data, v), "read the stack's state")
}
