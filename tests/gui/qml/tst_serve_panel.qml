// The Serve over NBD panel: with a stand-in controller, Serve passes what
// was typed (address, name, read-only), the URI and clients show while
// serving with Copy and Stop wired, fields lock while serving; with the
// real controller and no array open, Serve is disabled and a start says why.
import QtQuick
import QtQuick.Controls
import QtTest
import RaidScope

Item {
    id: root
    width: 900
    height: 500

    QtObject {
        id: fake
        property bool serving: false
        property string uri: ""
        property string address: ""
        property string summary: ""
        property string errorString: ""
        property string defaultAddress: "unix:/run/test/raidscope-gui.sock"
        property var clients: []
        property var started: []
        property int copies: 0
        property int stops: 0
        function start(a, n, ro) {
            started = [a, n, ro]
            serving = true
            address = a
            uri = "nbd+unix:///" + n + "?socket=" + a.substring(5)
            summary = "31.0 MiB, blocks of 512 to 33554432 bytes (preferred 4096)"
            return true
        }
        function stop() { stops++; serving = false; clients = [] }
        function copyUri() { copies++ }
    }
    // Stands in for an open array (members listed), without a real session.
    ServePanel { id: panel; width: 880; controller: fake; session: null }
    ServePanel { id: realPanel; y: 300; width: 880 }

    function find(parent, name) {
        if (!parent) return null
        if (parent.objectName === name) return parent
        const kids = parent.children || []
        for (let i = 0; i < kids.length; ++i) {
            const f = find(kids[i], name)
            if (f) return f
        }
        return null
    }
    function findAll(parent, name, out) {
        if (!parent) return out
        if (parent.objectName === name) out.push(parent)
        const kids = parent.children || []
        for (let i = 0; i < kids.length; ++i) findAll(kids[i], name, out)
        return out
    }

    TestCase {
        name: "ServePanel"
        when: windowShown

        function test_1_serveStopAndClients() {
            const button = find(panel, "serveButton")
            verify(button)
            compare(button.enabled, false, "no array open: nothing to serve")
            panel.arrayOpen = true  // as with an array open
            compare(button.enabled, true)
            compare(find(panel, "serveAddress").text, "unix:/run/test/raidscope-gui.sock")
            find(panel, "serveName").text = "disk"
            find(panel, "serveReadOnly").checked = true
            mouseClick(button)
            compare(fake.started, ["unix:/run/test/raidscope-gui.sock", "disk", true])
            compare(button.text, "Stop serving")
            compare(find(panel, "serveAddress").enabled, false, "the address is locked while serving")
            compare(find(panel, "serveUri").text, "nbd+unix:///disk?socket=/run/test/raidscope-gui.sock")
            verify(find(panel, "serveUri").visible)
            compare(find(panel, "serveClientsHeader").text, "No client connected.")
            mouseClick(find(panel, "copyUriButton"))
            compare(fake.copies, 1)

            fake.clients = [{ name: "nbd #1", text: "read 64.0 KiB in 1 ops, wrote 1.0 MiB in 1 ops" },
                            { name: "nbd #2", text: "read 0 bytes in 0 ops, wrote 0 bytes in 0 ops" }]
            tryCompare(find(panel, "serveClientsHeader"), "text", "2 clients connected:")
            const rows = findAll(panel, "serveClientRow", [])
            compare(rows.length, 2)
            compare(rows[0].children[0].text, "nbd #1")
            compare(rows[0].children[1].text, "read 64.0 KiB in 1 ops, wrote 1.0 MiB in 1 ops")

            mouseClick(button)
            compare(fake.stops, 1)
            compare(button.text, "Serve")
            compare(find(panel, "serveUri").visible, false)
            tryVerify(() => findAll(panel, "serveClientRow", []).length === 0)
        }

        function test_2_realControllerWithoutArray() {
            const button = find(realPanel, "serveButton")
            compare(button.enabled, false, "no array open")
            // The controller itself refuses too, and the panel shows why.
            verify(!realPanel.controller.start("unix:/tmp/x.sock", "disk", false))
            tryVerify(() => find(realPanel, "serveError").visible)
            verify(find(realPanel, "serveError").text.indexOf("No array is open") >= 0)
            verify(realPanel.controller.defaultAddress.startsWith("unix:"))
            compare(find(realPanel, "serveAddress").text, realPanel.controller.defaultAddress)
        }
    }
}
