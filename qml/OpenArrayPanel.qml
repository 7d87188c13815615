// The open array as an array manager shows it, with or without a workload:
// its state, the tasks running on it (rebuild, check) with progress, speed
// and time left, and one row per member with its state; a member is failed
// or replaced (and, once failed, removed) from its own row, after a
// confirmation that names it and says what the array will be afterwards.
// Check and Repair are tasks whose result is the mismatch count.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

Card {
    id: panel
    property LiveSession session
    property ArraysController arrays
    // Bound to the telemetry only while shown: hidden, its rows would still
    // be re-evaluated at every sample (20 a second).
    readonly property TelemetryModel tm: session && visible ? session.telemetry : null
    readonly property bool isOpen: session && session.members.length > 0
    readonly property var memberRows: tm ? tm.members : []
    title: qsTr("Open array")
    subtitle: isOpen ? session.arrayText : qsTr("none")
    implicitHeight: col.implicitHeight + 56
    SystemPalette { id: pal }

    ColumnLayout {
        id: col
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 8
        Label {
            visible: !panel.isOpen
            text: qsTr("No array is open: pick one in the list above, or create one below.")
            opacity: 0.7
        }
        // Tasks on the array (a rebuild after an add, a check), live.
        Repeater {
            model: panel.tm ? panel.tm.tasks.length : 0
            RowLayout {
                readonly property var task: panel.tm.tasks[index] || ({})
                objectName: "arrayTask_" + index
                Layout.fillWidth: true
                Label { text: task.kind || ""; font.bold: true }
                ProgressBar { Layout.preferredWidth: 240; value: task.fraction || 0 }
                Label { objectName: "arrayTaskText"; text: Theme.taskText(task); Layout.fillWidth: true; elide: Text.ElideRight }
            }
        }
        GridLayout {
            objectName: "memberRows"
            visible: panel.isOpen
            Layout.fillWidth: true
            columns: 5
            columnSpacing: 14
            rowSpacing: Theme.memberRowSpacing
            Repeater {
                model: ["", qsTr("Member"), qsTr("State"), qsTr("Errors"), ""]
                Label { text: modelData; opacity: 0.7 }
            }
            Repeater {
                model: panel.memberRows.length * 5
                delegate: Loader {
                    readonly property int row: Math.floor(index / 5)
                    readonly property int col: index % 5
                    readonly property var m: panel.memberRows[row] || ({})
                    Layout.fillWidth: col === 1
                    Layout.preferredHeight: Theme.memberRowHeight
                    sourceComponent: [swatch, nameLabel, stateBadge, errorsLabel, actions][col]
                }
            }
        }
        RowLayout {
            spacing: 8
            Button {
                objectName: "checkButton"
                text: qsTr("Check")
                enabled: panel.isOpen && !panel.arrays.working
                onClicked: panel.arrays.check(false)
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("Compare the copies (or the parity) over the whole array; the result is the mismatch count, nothing is written")
            }
            Button {
                objectName: "repairButton"
                text: qsTr("Repair")
                enabled: panel.isOpen && !panel.arrays.working
                onClicked: panel.arrays.check(true)
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("As Check, and rewrite what differs; the result is the mismatch count found")
            }
            Field {
                id: addPath
                objectName: "addPathField"
                placeholderText: qsTr("new member: image file or device")
                implicitWidth: 280
                selectByMouse: true
            }
            Button {
                objectName: "addButton"
                text: qsTr("Add")
                enabled: panel.isOpen && !panel.arrays.working && addPath.text.length > 0
                onClicked: if (panel.arrays.addMember(addPath.text, "256M")) addPath.clear()
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("Put it in the first missing or faulty slot and rebuild onto it (a missing file is made, 256 MiB)")
            }
        }
        // The last operation's outcome: progress while it runs, the result after.
        RowLayout {
            visible: panel.arrays.status !== ArraysController.Idle && !panel.arrays.creating
            spacing: 8
            Label { text: panel.arrays.taskName; font.bold: true }
            ProgressBar {
                objectName: "taskProgress"
                visible: panel.arrays.working
                Layout.preferredWidth: 240
                value: Math.max(0, panel.arrays.progress)
                indeterminate: panel.arrays.working && panel.arrays.progress < 0
            }
            Button {
                objectName: "cancelTaskButton"
                visible: panel.arrays.working
                text: qsTr("Cancel")
                onClicked: panel.arrays.cancel()
            }
            Label {
                objectName: "arraysMessage"
                text: panel.arrays.errorString.length ? panel.arrays.errorString : panel.arrays.message
                color: panel.arrays.errorString.length ? Theme.negative
                       : panel.arrays.mismatches > 0 ? Theme.neutral : pal.windowText
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
        }
    }

    Component { id: swatch; Item { implicitWidth: 12; implicitHeight: 12; Rectangle { anchors.centerIn: parent; width: 12; height: 12; radius: 3; color: Theme.memberColor(row) } } }
    Component {
        id: nameLabel
        Label {
            objectName: "arrayMember_" + row
            text: m.name || ""
            elide: Text.ElideMiddle
            verticalAlignment: Text.AlignVCenter
            ToolTip.visible: nh.hovered; ToolTip.text: m.path || ""
            HoverHandler { id: nh }
        }
    }
    Component {
        id: stateBadge
        Label { objectName: "memberState_" + row; text: m.state || ""; color: Theme.stateColor(m.state); verticalAlignment: Text.AlignVCenter }
    }
    Component { id: errorsLabel; Label { text: m.errors !== undefined ? String(m.errors) : ""; verticalAlignment: Text.AlignVCenter } }
    Component {
        id: actions
        RowLayout {
            spacing: 4
            Button {
                objectName: "failMember_" + row
                text: qsTr("Fail…")
                enabled: !panel.arrays.working && m.state !== "faulty" && m.state !== "missing"
                onClicked: { failDialog.slot = row; failDialog.open() }
            }
            Button {
                objectName: "removeMember_" + row
                text: qsTr("Remove…")
                // md's --remove: only a failed member leaves its slot.
                visible: m.state === "faulty"
                enabled: !panel.arrays.working
                onClicked: { removeDialog.slot = row; removeDialog.open() }
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("Take this failed member out of the array: its slot is left empty for a new member")
            }
            Button {
                objectName: "replaceMember_" + row
                text: qsTr("Replace…")
                enabled: !panel.arrays.working
                onClicked: { replaceDialog.slot = row; replaceDialog.open() }
            }
        }
    }

    Dialog {
        id: failDialog
        objectName: "failDialog"
        property int slot: -1
        title: qsTr("Fail a member")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(560, parent ? parent.width - 40 : 560)
        standardButtons: Dialog.Ok | Dialog.Cancel
        Label {
            objectName: "failDialogText"
            width: parent.width
            wrapMode: Text.Wrap
            text: failDialog.visible ? panel.arrays.describeFail(failDialog.slot) : ""
        }
        onAccepted: panel.arrays.failMember(slot)
    }
    Dialog {
        id: removeDialog
        objectName: "removeDialog"
        property int slot: -1
        title: qsTr("Remove a member")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(560, parent ? parent.width - 40 : 560)
        standardButtons: Dialog.Ok | Dialog.Cancel
        Label {
            objectName: "removeDialogText"
            width: parent.width
            wrapMode: Text.Wrap
            text: removeDialog.visible ? panel.arrays.describeRemove(removeDialog.slot) : ""
        }
        onAccepted: panel.arrays.removeMember(slot)
    }
    Dialog {
        id: replaceDialog
        objectName: "replaceDialog"
        property int slot: -1
        readonly property var member: panel.memberRows[slot] || ({})
        title: qsTr("Replace %1").arg(member.name || "")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(560, parent ? parent.width - 40 : 560)
        standardButtons: Dialog.Ok | Dialog.Cancel
        ColumnLayout {
            width: parent.width
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: qsTr("%1 is marked faulty (if it is not already) and the array is rebuilt onto the new member; until the rebuild ends it runs degraded.").arg(replaceDialog.member.name || "")
            }
            Field { id: replacePath; objectName: "replacePathField"; Layout.fillWidth: true; placeholderText: qsTr("new member: image file or device") }
        }
        onAccepted: panel.arrays.replaceMember(slot, replacePath.text, "256M")
    }
}
