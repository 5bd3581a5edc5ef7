package firestorestore

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// sweepBenchCollections are where the P3 documents live: the three
// collections that grow fastest.
var sweepBenchCollections = []string{SpentChallenges, RateCounters, Ledger}

// writeBatched writes n documents with expiry exp into the bench
// collections (round robin) in commits of maxBatchWrites, and returns how
// long the writes took: the plain batched write the sweep is measured
// against.
func (ts *testStore) writeBatched(b *testing.B, prefix string, n int, exp time.Time) time.Duration {
	b.Helper()
	ctx := context.Background()
	began := time.Now()
	for done := 0; done < n; {
		//lint:ignore SA1019 the reference is the same batched commit the sweep uses.
		batch := ts.client.Batch() //nolint:staticcheck // see above
		for i := 0; i < maxBatchWrites && done < n; i++ {
			coll := sweepBenchCollections[done%len(sweepBenchCollections)]
			batch.Set(ts.client.Collection(coll).Doc(prefix+strconv.Itoa(done)), rawDoc{Kind: coll, ExpireAt: exp})
			done++
		}
		if _, err := batch.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(began)
}

// BenchmarkSweepP3 is P3: a sweep over SWEEP_BENCH_EXPIRED expired
// documents (10,000) among SWEEP_BENCH_KEPT kept ones (50,000) on the
// emulator. It reports the documents the sweep read per document it
// deleted (target at most 1.1: the queries touch only what has expired),
// documents deleted per second, and, measured in the same run, documents
// per second of a plain batched write of as many documents (the reference)
// and the ratio of the two. Run it once: -benchtime 1x.
func BenchmarkSweepP3(b *testing.B) {
	expired, kept := envInt(b, "SWEEP_BENCH_EXPIRED", 10_000), envInt(b, "SWEEP_BENCH_KEPT", 50_000)
	ts := newTestStore(b)
	ctx := context.Background()
	start := t0
	ts.writeBatched(b, "kept-", kept, start.Add(24*time.Hour))
	sweeper := newSweeper(b, ts.SweepStore, testsupport.NewClock(start))
	var reads, deleted int64
	var took, reference time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		prefix := fmt.Sprintf("expired-%d-", i)
		reference += ts.writeBatched(b, prefix, expired, start.Add(-time.Minute))
		ts.rpcs.Reset()
		b.StartTimer()
		began := time.Now()
		run, err := sweeper.Run(ctx, intake.SweepByOwner)
		took += time.Since(began)
		if err != nil {
			b.Fatal(err)
		}
		reads += ts.rpcs.Documents()
		for _, n := range run.Deleted {
			deleted += int64(n)
		}
	}
	b.StopTimer()
	if deleted != int64(expired*b.N) {
		b.Fatalf("the sweeps deleted %d documents, %d had expired", deleted, expired*b.N)
	}
	for _, coll := range sweepBenchCollections {
		n, err := ts.client.Collection(coll).Where(ExpireAtField, "<=", start).Select().Documents(ctx).GetAll()
		if err != nil || len(n) != 0 {
			b.Fatalf("%s: %d expired documents left (%v)", coll, len(n), err)
		}
	}
	// The emulator has no real indexes: it answers a query by scanning the
	// collection, so each page's query costs time in proportion to what is
	// kept there. One query that finds nothing shows that cost.
	began := time.Now()
	if _, err := ts.client.Collection(sweepBenchCollections[0]).Where(ExpireAtField, "<=", start).Limit(sweepPage).Select().Documents(ctx).GetAll(); err != nil {
		b.Fatal(err)
	}
	emptyQuery := time.Since(began)
	deletedPerSec := float64(deleted) / took.Seconds()
	writtenPerSec := float64(int64(expired*b.N)) / reference.Seconds()
	b.ReportMetric(float64(reads)/float64(deleted), "reads/deleted")
	b.ReportMetric(deletedPerSec, "deleted/s")
	b.ReportMetric(writtenPerSec, "ref-written/s")
	b.ReportMetric(deletedPerSec/writtenPerSec, "sweep/ref")
	fmt.Printf("P3: %d expired among %d kept: %.3f documents read per document deleted (target <= 1.1); "+
		"%.0f deleted/s vs %.0f written/s by a plain batched write of the same documents (ratio %.2f); "+
		"the emulator scans on every query: one that finds nothing among %d kept takes %v\n",
		expired, kept, float64(reads)/float64(deleted), deletedPerSec, writtenPerSec, deletedPerSec/writtenPerSec,
		kept/len(sweepBenchCollections), emptyQuery.Round(time.Millisecond))
}

func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
