// Arrays, as an array manager shows them: the arrays the app knows (opened
// or created here, or found on the block devices by their md superblocks),
// one opened into the session with a click; the open array's state, tasks
// and members, acted on member by member (OpenArrayPanel); the slot where
// the export panel goes; and the create wizard (CreateWizard). A running
// workload is never stopped without asking.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

ScrollView {
    id: page
    property LiveSession session
    property alias controller: arrays
    contentWidth: availableWidth
    clip: true
    // A scroll bar always shown when the page is longer than the window (as
    // Breeze does; Fusion's shows only while scrolling, so nothing said
    // there was more below), with the content narrowed to clear it.
    // Decided after the layout pass, not inside it: the bar narrows the
    // content, and a layout resized from within its own pass crashed
    // (Qt 6.4's GridLayout).
    property bool overflowing: false
    function updateOverflow() { overflowing = contentHeight > height }
    onContentHeightChanged: Qt.callLater(updateOverflow)
    onHeightChanged: Qt.callLater(updateOverflow)
    ScrollBar.vertical.policy: overflowing ? ScrollBar.AlwaysOn : ScrollBar.AlwaysOff
    readonly property real barRoom: ScrollBar.vertical.visible ? ScrollBar.vertical.width + 2 : 0
    SystemPalette { id: pal }

    ArraysController {
        id: arrays
        session: page.session
    }
    ArrayList { id: arrayList; session: page.session; Component.onCompleted: refresh() }
    property alias arrayList: arrayList
    property alias wizard: wizard

    // "Stop the workload?" before an open or a create that needs the array.
    Dialog {
        id: stopDialog
        objectName: "stopWorkloadDialog"
        property var proceed: null
        property string what
        title: qsTr("Stop the running workload?")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        standardButtons: Dialog.Yes | Dialog.No
        width: 520
        Label {
            width: parent.width
            wrapMode: Text.Wrap
            text: qsTr("%1 needs the workload running now (%2) to stop first.").arg(stopDialog.what)
                  .arg(page.session ? page.session.workloadName : "")
        }
        onAccepted: if (proceed) proceed()
    }
    function askStop(what, proceed) {
        stopDialog.what = what
        stopDialog.proceed = proceed
        stopDialog.open()
    }
    function openArray(members) {
        const busy = page.session && page.session.busy
        if (busy) askStop(qsTr("Opening another array"), () => arrays.open(members, true))
        else arrays.open(members, false)
    }

    ColumnLayout {
        width: page.availableWidth - page.barRoom
        spacing: Theme.spacing

        Card {
            objectName: "arrayListCard"
            Layout.fillWidth: true
            title: qsTr("Arrays")
            subtitle: arrayList.scanning ? qsTr("looking for arrays on the block devices…") : qsTr("opened here before, or found on the block devices")
            implicitHeight: listCol.implicitHeight + 56
            headerExtras: Button { text: qsTr("Rescan"); enabled: !arrayList.scanning; onClicked: arrayList.refresh() }
            ColumnLayout {
                id: listCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 4
                Label { visible: arrayList.arrays.length === 0; text: qsTr("No array known yet."); opacity: 0.7 }
                Repeater {
                    model: arrayList.arrays
                    RowLayout {
                        objectName: "arrayRow_" + index
                        Layout.fillWidth: true
                        spacing: 10
                        Label { text: modelData.open ? "●" : "○"; color: modelData.open ? Theme.positive : pal.mid }
                        Label {
                            text: modelData.name || modelData.names.join(", ")
                            font.bold: modelData.open
                            elide: Text.ElideMiddle
                            Layout.preferredWidth: 220
                        }
                        Label {
                            objectName: "arrayRowState"
                            text: modelData.state
                            elide: Text.ElideRight
                            Layout.fillWidth: true
                            opacity: 0.85
                        }
                        Button {
                            objectName: "openArrayButton"
                            text: modelData.open ? qsTr("Open") : qsTr("Open…")
                            enabled: !modelData.open && !arrays.working
                            onClicked: page.openArray(modelData.members)
                            ToolTip.visible: hovered; ToolTip.delay: 600
                            ToolTip.text: modelData.open ? qsTr("This array is open") : qsTr("Assemble it from %1 and show it live").arg(modelData.names.join(", "))
                        }
                        Button {
                            text: qsTr("Forget")
                            visible: modelData.known && !modelData.open
                            onClicked: arrayList.forget(modelData.key)
                            ToolTip.visible: hovered; ToolTip.delay: 600
                            ToolTip.text: qsTr("Drop it from this list (nothing on the disks changes)")
                        }
                    }
                }
                RowLayout {
                    spacing: 8
                    Field {
                        id: openPaths
                        objectName: "openPathsField"
                        placeholderText: qsTr("or open from its members: paths, separated by commas")
                        Layout.fillWidth: true
                        selectByMouse: true
                    }
                    Button {
                        objectName: "openButton"
                        text: qsTr("Open")
                        enabled: !arrays.working && openPaths.text.trim().length > 0
                        onClicked: page.openArray(openPaths.text.split(",").map(s => s.trim()).filter(s => s.length))
                    }
                }
            }
        }

        OpenArrayPanel {
            objectName: "openArrayPanel"
            Layout.fillWidth: true
            session: page.session
            arrays: arrays
        }

        // Parity arrays: which member holds each data chunk, P and Q.
        StripeMapCard {
            objectName: "stripeMapCard"
            Layout.fillWidth: true
            session: page.session
        }

        // Serving the open array to other programs over NBD (ServePanel.qml).
        ServePanel {
            objectName: "servePanel"
            Layout.fillWidth: true
            session: page.session
        }

        CreateWizard {
            id: wizard
            objectName: "createWizard"
            Layout.fillWidth: true
            session: page.session
            arrays: arrays
            askStop: page.askStop
        }
    }
    Connections {
        target: arrays
        function onStatusChanged() { if (!arrays.working) { arrayList.refresh(); wizard.picker.scan() } }
    }
}
