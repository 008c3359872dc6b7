// PushCore: JPush push bodies validated and APNs payloads built; see issue 5.
