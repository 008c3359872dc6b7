// APNSSimulator: work in progress.
