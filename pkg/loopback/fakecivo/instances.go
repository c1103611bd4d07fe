package fakecivo

import (
	"net/http"
	"slices"

	"github.com/civo/civogo"
)

// deleteInstance answers DELETE /v2/kubernetes/clusters/{cid}/pools/{pid}/instances/{id}?region=,
// the call civogo v0.3.89 makes in DeleteKubernetesClusterPoolInstance (pool.go): the instance
// goes and the pool's count drops by one, as Civo's cluster autoscaler expects of it
// (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/civo, DeleteNodes). It answers civogo's
// SimpleResponse, and 404 with Civo's pool code when the pool or the instance is not there.
func (f poolAPI) deleteInstance(q *request, cid, pid, id string) {
	p, ok := f.pools[cid+"/"+pid]
	if !ok {
		f.fail(q.w, http.StatusNotFound, "database_cluster_pool_not_found", "cluster "+cid+" has no pool "+pid)
		return
	}
	i := slices.IndexFunc(p.pool.Instances, func(in civogo.KubernetesInstance) bool { return in.ID == id })
	if i < 0 {
		f.fail(q.w, http.StatusNotFound, "database_cluster_pool_instance_not_found", "pool "+pid+" has no instance "+id)
		return
	}
	p.pool.Instances = slices.Delete(p.pool.Instances, i, i+1)
	p.pool.InstanceNames = slices.DeleteFunc(p.pool.InstanceNames, func(n string) bool { return n == id })
	p.pool.Count = len(p.pool.Instances)
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: id, Result: civogo.ResultSuccess})
}
