package admin_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/functions/admin/adminseed"
	"github.com/ownersite/introductions/shared/emulatortest"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/jsonapi"
)

// BenchmarkPages prints what one view of the list page, of an
// introduction's page and of the JSON list costs in Firestore round trips,
// with 60 introductions kept and a month of figures; and the list page's
// time against the JSON list's, measured in the same run. It asserts
// nothing.
func BenchmarkPages(b *testing.B) {
	host := emulatortest.Host(b)
	project := emulatortest.Project(b)
	emulatortest.Reset(b, host, project)
	ctx := context.Background()
	counter := &emulatortest.RPCCounter{}
	client, err := firestore.NewClientWithDatabase(ctx, project, emulatortest.Database, counter.ClientOptions(host)...)
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	logger := slog.New(slog.DiscardHandler)
	db, err := firestorestore.New(client, firestorestore.Config{Database: emulatortest.Database, OpTimeout: 20 * time.Second}, logger)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := adminseed.SeedRealistic(ctx, db, client, now)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 51; i++ {
		s := sample(fmt.Sprint("Person ", i), fmt.Sprintf("p%d@example.com", i), now.Add(-time.Duration(i)*time.Hour))
		if _, err := adminseed.Keep(ctx, db, s); err != nil {
			b.Fatal(err)
		}
	}
	figures, _ := admin.NewDailyFiguresTask(db.Owner(), adminseed.PowMaxNumber, logger)
	if _, err := figures.Run(ctx, now); err != nil {
		b.Fatal(err)
	}
	h, err := admin.New(admin.Deps{Store: db.Owner(), Keys: testKeys(b, "1"), Clock: fixedClock{now}, Logger: logger})
	if err != nil {
		b.Fatal(err)
	}
	served, err := jsonapi.NewRoutes(admin.Routes(h), nil, logger)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(served)
	defer srv.Close()
	get := func(path string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
	var listRPCs, detailRPCs, jsonRPCs int64
	var listTime, jsonTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0, t0 := counter.Count(), time.Now()
		get("/admin/")
		c1, t1 := counter.Count(), time.Now()
		get("/admin/api/introductions")
		c2, t2 := counter.Count(), time.Now()
		get("/admin/introductions/" + ids[0])
		c3 := counter.Count()
		listRPCs, jsonRPCs, detailRPCs = listRPCs+c1-c0, jsonRPCs+c2-c1, detailRPCs+c3-c2
		listTime, jsonTime = listTime+t1.Sub(t0), jsonTime+t2.Sub(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(listRPCs)/n, "rpcs/list-page")
	b.ReportMetric(float64(jsonRPCs)/n, "rpcs/json-list")
	b.ReportMetric(float64(detailRPCs)/n, "rpcs/detail-page")
	b.ReportMetric(float64(listTime)/float64(jsonTime), "list-page/json-list-time")
}
