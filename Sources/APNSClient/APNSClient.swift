// APNSClient: work in progress.
