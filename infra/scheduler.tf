# Cloud Scheduler calls the sweep with an OIDC token of its own service
# account, which may invoke the sweep and nothing else (iam.tf, functions.tf).

locals {
  scheduler_region   = coalesce(var.scheduler_region, var.region)
  scheduler_job_name = "introductions-sweep"
  # The job's full name, as the admin's health page reads it
  # (SCHEDULER_JOB); spelled out, since the admin is declared before the job.
  scheduler_job = "projects/${var.project_id}/locations/${local.scheduler_region}/jobs/${local.scheduler_job_name}"
  # Cloud Scheduler gives up on an attempt after this long: longer than the
  # sweep's own timeout, so a slow run is never cut off and retried while it
  # is still deleting.
  sweep_attempt_deadline_seconds = local.functions["sweep"].timeout_seconds + 30
}

resource "google_cloud_scheduler_job" "sweep" {
  project          = var.project_id
  region           = local.scheduler_region
  name             = local.scheduler_job_name
  description      = "Runs the Introductions sweep: deletes what has expired, retries pending deliveries, re-checks consent evidence."
  schedule         = var.sweep_schedule
  time_zone        = "Etc/UTC"
  attempt_deadline = "${local.sweep_attempt_deadline_seconds}s"

  # A failed run is retried a few times, backing off; the next scheduled run
  # comes anyway.
  retry_config {
    retry_count          = 3
    min_backoff_duration = "30s"
    max_backoff_duration = "300s"
    max_doublings        = 3
  }

  http_target {
    http_method = "POST"
    uri         = "${google_cloudfunctions2_function.function["sweep"].service_config[0].uri}/internal/sweep"

    oidc_token {
      service_account_email = google_service_account.scheduler.email
      audience              = google_cloudfunctions2_function.function["sweep"].service_config[0].uri
    }
  }

  depends_on = [
    google_project_service.enabled,
    google_cloud_run_service_iam_member.invoker,
  ]
}
