package infra_test

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/ownersite/introductions/shared/intake"
)

// checkAttachmentsBucket: the attachments' bucket is private (uniform
// access, public access prevention enforced), keeps no deleted file (no
// versions, no soft delete), is not destroyed with its files by a
// terraform destroy, and deletes every file by a lifecycle rule one day
// after the code's retention of an introduction, the longest a file may
// be kept.
func checkAttachmentsBucket(c *config, _ code) []string {
	b := c.resource("google_storage_bucket", "attachments")
	if b == nil {
		return []string{"no google_storage_bucket.attachments"}
	}
	var problems []string
	want := func(name string, v cty.Value, on *hclsyntax.Block, where string) {
		a, ok := on.Body.Attributes[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("attachments bucket: %s%s is not set (want %s)", where, name, v.GoString()))
			return
		}
		got, diags := a.Expr.Value(nil)
		if diags.HasErrors() || !got.Type().Equals(v.Type()) || !got.Equals(v).True() {
			problems = append(problems, fmt.Sprintf("attachments bucket: %s%s = %s, want %s", where, name, c.sourceOf(on, name), v.GoString()))
		}
	}
	want("uniform_bucket_level_access", cty.True, b, "")
	want("public_access_prevention", cty.StringVal("enforced"), b, "")
	want("force_destroy", cty.False, b, "")
	if v := block(b, "versioning"); v == nil {
		problems = append(problems, "attachments bucket: no versioning block (want enabled = false)")
	} else {
		want("enabled", cty.False, v, "versioning.")
	}
	if s := block(b, "soft_delete_policy"); s == nil {
		problems = append(problems, "attachments bucket: no soft_delete_policy (the default keeps deleted files 7 days)")
	} else {
		want("retention_duration_seconds", cty.Zero, s, "soft_delete_policy.")
	}
	days := int64(intake.DefaultRetention.Introduction / (24 * time.Hour))
	if v, diags := c.locals["introduction_retention_days"].Value(nil); diags.HasErrors() || !v.Equals(cty.NumberIntVal(days)).True() {
		problems = append(problems, fmt.Sprintf("local.introduction_retention_days must be the code's introduction retention, %d days", days))
	}
	rule := block(b, "lifecycle_rule")
	if rule == nil || block(rule, "condition") == nil || block(rule, "action") == nil {
		return append(problems, "attachments bucket: no lifecycle rule deleting files as a backstop")
	}
	if got := c.sourceOf(block(rule, "condition"), "age"); got != "local.introduction_retention_days + 1" {
		problems = append(problems, fmt.Sprintf("attachments bucket: lifecycle age = %s, want local.introduction_retention_days + 1", got))
	}
	want("type", cty.StringVal("Delete"), block(rule, "action"), "lifecycle_rule.action.")
	return problems
}
