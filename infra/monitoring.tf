# The owner learns of trouble by email, without opening the admin: log-based
# metrics count what the functions log, and alert policies mail the owner
# when an email or webhook delivery is FAILED, when a sweep run fails, when
# no sweep run has finished for 26 hours (the schedule runs one every 15
# minutes), and when a function answers 5xx. Each alert's documentation says
# what to do (shared/delivery/README.md, "When a delivery fails").

locals {
  # Where the alerts go: alert_email, else the owner's account.
  alert_email = coalesce(var.alert_email, var.owner_email)

  # The functions' own log lines: Cloud Logging reads each JSON line a
  # function writes (shared/cloudlog) into jsonPayload, its severity into
  # the entry's severity.
  function_logs = "resource.type=\"cloud_run_revision\" AND resource.labels.service_name=~\"^introductions-\""

  # Each log-based metric counts the lines with one of messages whose
  # fields have these values, at a severity ("=ERROR", "<ERROR" or "" for
  # any). The messages and fields are the code's own (the infra checks read
  # them from the code's log calls).
  log_metrics = {
    delivery_failed = {
      description = "Deliveries (email, webhook) that ended FAILED: the sends ran out, or the provider reported a permanent failure."
      messages    = ["delivery: attempted", "delivery: provider event"]
      fields      = { status = "FAILED" }
      severity    = ""
    }
    sweep_failed = {
      description = "Sweep runs that finished with an error."
      messages    = ["sweep finished"]
      fields      = {}
      severity    = "=ERROR"
    }
    sweep_completed = {
      description = "Sweep runs that finished without an error."
      messages    = ["sweep finished"]
      fields      = {}
      severity    = "<ERROR"
    }
  }

  log_filters = {
    for name, m in local.log_metrics : name => join(" AND ", concat(
      [local.function_logs, "jsonPayload.message=(${join(" OR ", [for msg in m.messages : "\"${msg}\""])})"],
      [for k, v in m.fields : "jsonPayload.${k}=\"${v}\""],
      m.severity == "" ? [] : ["severity${m.severity}"],
    ))
  }

  # How long without a finished sweep run before the owner is told.
  sweep_silence = "26h"

  # What the owner reads in each alert's mail.
  alert_docs = {
    delivery = "An introduction's email or webhook delivery is FAILED. Open the admin (terraform -chdir=infra output -raw admin_proxy_command), find the introduction marked FAILED, read its last error, fix the cause (shared/delivery/README.md, \"When a delivery fails\") and press Retry now."
    sweep    = "The sweep deletes what has expired and retries deliveries. Open the admin's Retention page: it shows the last runs, their errors and the Cloud Scheduler job's last attempt. Run it now with: gcloud scheduler jobs run ${local.scheduler_job}"
    errors   = "A function answered 5xx: the service could not do what was asked (Firestore unreachable, a crash, a timeout). Read the function's logs: gcloud logging read 'resource.type=\"cloud_run_revision\" AND resource.labels.service_name=~\"^introductions-\" AND severity>=ERROR' --project=${var.project_id} --freshness=1h"
  }
}

resource "google_logging_metric" "log" {
  for_each = local.log_metrics

  project     = var.project_id
  name        = "introductions_${each.key}"
  description = each.value.description
  filter      = local.log_filters[each.key]

  metric_descriptor {
    metric_kind = "DELTA"
    value_type  = "INT64"
    unit        = "1"
  }

  depends_on = [google_project_service.enabled]
}

resource "google_monitoring_notification_channel" "owner" {
  project      = var.project_id
  display_name = "Introductions: the owner"
  type         = "email"
  labels = {
    email_address = local.alert_email
  }

  depends_on = [google_project_service.enabled]
}

resource "google_monitoring_alert_policy" "delivery_failed" {
  project               = var.project_id
  display_name          = "Introductions: a delivery FAILED"
  combiner              = "OR"
  notification_channels = [google_monitoring_notification_channel.owner.id]

  conditions {
    display_name = "A delivery ended FAILED"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.log["delivery_failed"].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  alert_strategy {
    auto_close = "86400s"
  }

  documentation {
    content   = local.alert_docs.delivery
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.enabled]
}

resource "google_monitoring_alert_policy" "sweep" {
  project               = var.project_id
  display_name          = "Introductions: the sweep failed or stopped"
  combiner              = "OR"
  notification_channels = [google_monitoring_notification_channel.owner.id]

  conditions {
    display_name = "A sweep run failed"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.log["sweep_failed"].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  # A metric-absence condition waits at most 23.5 hours: PromQL's
  # absent_over_time looks back the whole 26. It holds for 30 minutes before
  # it fires, so the first scheduled run after a first deploy clears it.
  conditions {
    display_name = "No sweep run finished in ${local.sweep_silence}"
    condition_prometheus_query_language {
      query               = "absent_over_time(logging_googleapis_com:user_${google_logging_metric.log["sweep_completed"].name}{monitored_resource=\"cloud_run_revision\"}[${local.sweep_silence}])"
      duration            = "1800s"
      evaluation_interval = "300s"
    }
  }

  alert_strategy {
    auto_close = "86400s"
  }

  documentation {
    content   = local.alert_docs.sweep
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.enabled]
}

resource "google_monitoring_alert_policy" "server_errors" {
  project               = var.project_id
  display_name          = "Introductions: a function answered 5xx"
  combiner              = "OR"
  notification_channels = [google_monitoring_notification_channel.owner.id]

  conditions {
    display_name = "5xx answers"
    condition_threshold {
      filter          = "metric.type=\"run.googleapis.com/request_count\" AND resource.type=\"cloud_run_revision\" AND metric.labels.response_code_class=\"5xx\" AND resource.labels.service_name=starts_with(\"introductions-\")"
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  alert_strategy {
    auto_close = "86400s"
  }

  documentation {
    content   = local.alert_docs.errors
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.enabled]
}
