// Serve the open array over NBD: other programs on this machine (fio,
// qemu-img, nbdcopy, nbdinfo, a VM) use it as a disk while the dashboard
// shows their load. The address is a unix socket or a loopback port; the
// URI is what NBD clients take; connected clients are listed with their
// bytes and operations. The logic is ExportController's (`controller`;
// a test gives a stand-in with the same properties and functions).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

Card {
    id: panel
    property LiveSession session
    property var controller: own
    property bool arrayOpen: session !== null && session.members.length > 0
    title: qsTr("Serve over NBD")
    subtitle: controller.serving ? controller.address : qsTr("other programs on this machine use the array as a disk")
    implicitHeight: col.implicitHeight + 56
    SystemPalette { id: pal }

    ExportController {
        id: own
        session: panel.session
    }

    ColumnLayout {
        id: col
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 6
        RowLayout {
            spacing: 8
            Label { text: qsTr("Address") }
            Field {
                id: addressField
                objectName: "serveAddress"
                text: panel.controller.defaultAddress
                enabled: !panel.controller.serving
                Layout.preferredWidth: 320
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("unix:PATH for a socket, or tcp:127.0.0.1:PORT (0 picks a free port). Only this machine: NBD has no authentication")
            }
            Label { text: qsTr("Name") }
            Field {
                id: nameField
                objectName: "serveName"
                text: "raidscope"
                enabled: !panel.controller.serving
                Layout.preferredWidth: 120
            }
            Check {
                id: readOnlyBox
                objectName: "serveReadOnly"
                text: qsTr("Read-only")
                enabled: !panel.controller.serving
            }
            Button {
                objectName: "serveButton"
                text: panel.controller.serving ? qsTr("Stop serving") : qsTr("Serve")
                enabled: panel.controller.serving || panel.arrayOpen
                onClicked: panel.controller.serving ? panel.controller.stop()
                                                    : panel.controller.start(addressField.text, nameField.text, readOnlyBox.checked)
            }
        }
        RowLayout {
            visible: panel.controller.serving
            spacing: 8
            Label { text: qsTr("URI") }
            Field {
                objectName: "serveUri"
                text: panel.controller.uri
                readOnly: true
                selectByMouse: true
                font.family: "monospace"
                Layout.fillWidth: true
            }
            Button {
                objectName: "copyUriButton"
                text: qsTr("Copy")
                onClicked: panel.controller.copyUri()
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("For nbdinfo, nbdcopy, qemu-img, or fio --ioengine=nbd --uri=…")
            }
        }
        Label {
            objectName: "serveSummary"
            visible: panel.controller.serving
            text: panel.controller.summary
            opacity: 0.8
        }
        Label {
            objectName: "serveClientsHeader"
            visible: panel.controller.serving
            text: panel.controller.clients.length === 0 ? qsTr("No client connected.")
                : panel.controller.clients.length === 1 ? qsTr("1 client connected:")
                : qsTr("%1 clients connected:").arg(panel.controller.clients.length)
            opacity: panel.controller.clients.length === 0 ? 0.6 : 1
        }
        Repeater {
            model: panel.controller.serving ? panel.controller.clients : []
            delegate: RowLayout {
                objectName: "serveClientRow"
                required property var modelData
                spacing: 12
                Label { text: modelData.name; font.family: "monospace"; Layout.preferredWidth: 200 }
                Label { text: modelData.text; opacity: 0.85 }
            }
        }
        Label {
            objectName: "serveError"
            visible: text.length > 0
            text: panel.controller.errorString
            color: Theme.negative
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
}
