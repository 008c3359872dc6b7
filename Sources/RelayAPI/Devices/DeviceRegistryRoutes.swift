import HTTPServer

/// Every route of the device registry: the JPush device, tag and alias calls, bulk import,
/// and the admin listing.
struct DeviceRegistryRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        DeviceRoutes(context: context).register(in: &router)
        TagRoutes(context: context).register(in: &router)
        AliasRoutes(context: context).register(in: &router)
        DeviceImportRoutes(context: context).register(in: &router)
        AdminDeviceRoutes(context: context).register(in: &router)
    }
}
