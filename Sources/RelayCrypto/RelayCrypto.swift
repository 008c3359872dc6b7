// RelayCrypto: work in progress.
