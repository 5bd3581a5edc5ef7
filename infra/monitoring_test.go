package infra_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/zclconf/go-cty/cty"
)

// logLevels are slog's logging methods: a call of one of them is a log call.
var logLevels = []string{"Log", "LogAttrs", "Debug", "Info", "Warn", "Error", "DebugContext", "InfoContext", "WarnContext", "ErrorContext"}

// loggedAttrs reads the module's Go files outside tests and returns, for
// each message a log call writes (its first string literal argument), the
// keys of the attributes the call names (slog.String("key", …) and the
// like), each call's keys in one list.
func loggedAttrs(root string) (map[string][][]string, error) {
	out := map[string][][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "infra" || d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains(logLevels, sel.Sel.Name) {
				return true
			}
			msg := ""
			var keys []string
			for _, a := range call.Args {
				switch a := a.(type) {
				case *ast.BasicLit:
					if s, err := strconv.Unquote(a.Value); err == nil && a.Kind == token.STRING && msg == "" {
						msg = s
					}
				case *ast.CallExpr:
					if fs, ok := a.Fun.(*ast.SelectorExpr); ok && len(a.Args) > 0 {
						if x, ok := fs.X.(*ast.Ident); ok && x.Name == "slog" {
							if k, ok := a.Args[0].(*ast.BasicLit); ok && k.Kind == token.STRING {
								key, _ := strconv.Unquote(k.Value)
								keys = append(keys, key)
							}
						}
					}
				}
			}
			if msg != "" {
				out[msg] = append(out[msg], keys)
			}
			return true
		})
		return nil
	})
	return out, err
}

// deliveryStatuses are the statuses an envelope can hold.
var deliveryStatuses = []string{string(intake.DeliveryPending), string(intake.DeliveryAccepted), string(intake.DeliveryDelivered),
	string(intake.DeliveryRetryPending), string(intake.DeliveryFailed)}

// wantAlerts are the alerts the owner is promised, each by the metrics its
// policy reads.
var wantAlerts = map[string][]string{
	"delivery_failed": {`google_logging_metric.log["delivery_failed"]`},
	"sweep":           {`google_logging_metric.log["sweep_failed"]`, `google_logging_metric.log["sweep_completed"]`},
	"server_errors":   {`run.googleapis.com/request_count`, `response_code_class=\"5xx\"`},
}

// checkMonitoring: the owner hears of a FAILED delivery, a failed or
// silent sweep and 5xx answers by email. Every log-based metric counts
// lines the code writes: each of its messages is a log call's, and that
// call names each field the metric filters on; a status it filters on is
// an envelope's status. Every policy mails the owner's channel, and the
// channel is the owner's address (or alert_email).
func checkMonitoring(c *config, k code) []string {
	var problems []string
	channel := c.resource("google_monitoring_notification_channel", "owner")
	if channel == nil {
		return []string{"no google_monitoring_notification_channel.owner: the alerts would reach no one"}
	}
	if t, _ := literal(channel, "type"); t != "email" {
		problems = append(problems, fmt.Sprintf("the owner's channel is of type %q, want email", t))
	}
	if s := c.sourceOf(channel, "labels"); !strings.Contains(s, "email_address = local.alert_email") {
		problems = append(problems, "the owner's channel must mail local.alert_email")
	}
	if e, ok := c.locals["alert_email"]; !ok || c.exprSource(e) != "coalesce(var.alert_email, var.owner_email)" {
		problems = append(problems, "local.alert_email must be coalesce(var.alert_email, var.owner_email): the owner's address unless another is given")
	}

	metrics, err := c.eval(c.locals["log_metrics"])
	if err != nil || !metrics.CanIterateElements() {
		return append(problems, fmt.Sprintf("local.log_metrics: %v", err))
	}
	for it := metrics.ElementIterator(); it.Next(); {
		name, m := it.Element()
		var fields []string
		for fit := m.GetAttr("fields").ElementIterator(); fit.Next(); {
			f, v := fit.Element()
			fields = append(fields, f.AsString())
			if f.AsString() == "status" && !slices.Contains(deliveryStatuses, v.AsString()) {
				problems = append(problems, fmt.Sprintf("metric %s filters on status %q, which no envelope holds (%v)", name.AsString(), v.AsString(), deliveryStatuses))
			}
		}
		for mit := m.GetAttr("messages").ElementIterator(); mit.Next(); {
			_, msg := mit.Element()
			calls, ok := k.logged[msg.AsString()]
			if !ok {
				problems = append(problems, fmt.Sprintf("metric %s counts %q, which no log call of the code writes", name.AsString(), msg.AsString()))
				continue
			}
			if !slices.ContainsFunc(calls, func(keys []string) bool {
				return !slices.ContainsFunc(fields, func(f string) bool { return !slices.Contains(keys, f) })
			}) {
				problems = append(problems, fmt.Sprintf("metric %s filters %q on %v, but no log call of it names them all (%v)", name.AsString(), msg.AsString(), fields, calls))
			}
		}
	}
	lm := c.resource("google_logging_metric", "log")
	if lm == nil || c.sourceOf(lm, "for_each") != "local.log_metrics" || c.sourceOf(lm, "filter") != "local.log_filters[each.key]" {
		problems = append(problems, "google_logging_metric.log must be one metric per local.log_metrics, filtered by local.log_filters[each.key]")
	}
	if v, err := c.eval(c.locals["function_logs"]); err != nil || !strings.Contains(v.AsString(), `resource.labels.service_name=~"^introductions-"`) {
		problems = append(problems, `local.function_logs must select the functions' services, introductions-<key>`)
	}
	if v, err := c.eval(c.locals["sweep_silence"]); err != nil || v.Type() != cty.String || v.AsString() != "26h" {
		problems = append(problems, "local.sweep_silence must be 26h: a day's schedule and a margin")
	}

	for name, metrics := range wantAlerts {
		p := c.resource("google_monitoring_alert_policy", name)
		if p == nil {
			problems = append(problems, fmt.Sprintf("no google_monitoring_alert_policy.%s", name))
			continue
		}
		if !slices.Contains(refs(p, "notification_channels"), "google_monitoring_notification_channel.owner.id") {
			problems = append(problems, fmt.Sprintf("alert %s does not mail the owner's channel", name))
		}
		src := policySource(c, p)
		for _, m := range metrics {
			if !strings.Contains(src, m) {
				problems = append(problems, fmt.Sprintf("alert %s does not read %s", name, m))
			}
		}
		if block(p, "documentation") == nil {
			problems = append(problems, fmt.Sprintf("alert %s has no documentation: its mail must say what to do", name))
		}
		problems = append(problems, firesOnTheFirst(c, name, p)...)
	}
	return problems
}

// firesOnTheFirst checks each threshold condition of alert name's policy p
// fires on the first event: the sum over 5 minutes of every series above
// 0, at once.
func firesOnTheFirst(c *config, name string, p *hclsyntax.Block) []string {
	var problems []string
	for _, cond := range p.Body.Blocks {
		th := block(cond, "condition_threshold")
		if cond.Type != "conditions" || th == nil {
			continue
		}
		agg := block(th, "aggregations")
		comparison, _ := literal(th, "comparison")
		duration, _ := literal(th, "duration")
		var aligner, reducer string
		if agg != nil {
			aligner, _ = literal(agg, "per_series_aligner")
			reducer, _ = literal(agg, "cross_series_reducer")
		}
		threshold := cty.NilVal
		if a, ok := th.Body.Attributes["threshold_value"]; ok {
			threshold, _ = a.Expr.Value(nil)
		}
		if comparison != "COMPARISON_GT" || threshold.Type() != cty.Number || !threshold.Equals(cty.Zero).True() || duration != "0s" ||
			aligner != "ALIGN_SUM" || reducer != "REDUCE_SUM" {
			problems = append(problems, fmt.Sprintf("alert %s: a condition that does not fire on the first event (%s %s for %q, %s, %s): want COMPARISON_GT 0 for 0s, ALIGN_SUM, REDUCE_SUM",
				name, comparison, c.sourceOf(th, "threshold_value"), duration, aligner, reducer))
		}
	}
	return problems
}

// policySource is the source text of p's conditions.
func policySource(c *config, p *hclsyntax.Block) string {
	var b strings.Builder
	for _, cond := range p.Body.Blocks {
		if cond.Type == "conditions" {
			r := cond.Range()
			b.WriteString(c.files[r.Filename][r.Start.Byte:r.End.Byte])
		}
	}
	return b.String()
}

func TestLoggedAttrsFindsTheDeliveryLog(t *testing.T) {
	logged, err := loggedAttrs("..")
	if err != nil {
		t.Fatal(err)
	}
	calls := logged["delivery: attempted"]
	if len(calls) == 0 || !slices.ContainsFunc(calls, func(keys []string) bool { return slices.Contains(keys, "status") }) {
		t.Fatalf("delivery: attempted logged with %v", calls)
	}
	if len(logged["sweep finished"]) == 0 {
		t.Fatal("no log call writes \"sweep finished\"")
	}
}
