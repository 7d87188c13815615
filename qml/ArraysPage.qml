// Arrays: create one (level, layout, chunk, members: new image files of a
// size, existing files or devices), open an existing one from its members,
// and the long operations on the open array (check, repair, fail, add) as
// tasks with a progress bar and Cancel.
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
    function memberPaths() { return membersText.text.split("\n").map(s => s.trim()).filter(s => s.length > 0) }

    ColumnLayout {
        width: page.availableWidth - page.barRoom
        spacing: Theme.spacing

        Card {
            Layout.fillWidth: true
            title: qsTr("Open array")
            subtitle: page.session ? page.session.arrayText : ""
            implicitHeight: openCol.implicitHeight + 56
            ColumnLayout {
                id: openCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                Label {
                    readonly property bool open: page.session && page.session.members.length > 0
                    text: open ? page.session.members.join("\n") : qsTr("No array is open.")
                    // Paths in monospace; the empty state in the text font, dimmer.
                    font.family: open ? "monospace" : Qt.application.font.family
                    opacity: open ? 0.85 : 0.6
                }
                RowLayout {
                    spacing: 8
                    Button {
                        objectName: "checkButton"
                        text: qsTr("Check")
                        enabled: !arrays.working && page.session && page.session.members.length > 0
                        onClicked: arrays.check(false)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Compare the copies (mismatches are counted, nothing is written)"); ToolTip.delay: 600
                    }
                    Button {
                        objectName: "repairButton"
                        text: qsTr("Repair")
                        enabled: !arrays.working && page.session && page.session.members.length > 0
                        onClicked: arrays.check(true)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Compare the copies and rewrite those that differ"); ToolTip.delay: 600
                    }
                    Label { text: qsTr("Member") }
                    SpinBox {
                        id: failSlot
                        objectName: "failSlotBox"
                        // A slot number: two digits and the arrows, not
                        // Fusion's 140 px default.
                        implicitWidth: 88
                        from: 0
                        to: Math.max(0, (page.session ? page.session.members.length : 1) - 1)
                    }
                    Button {
                        objectName: "failButton"
                        text: qsTr("Fail")
                        enabled: !arrays.working && page.session && page.session.members.length > 0
                        onClicked: arrays.failMember(failSlot.value)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Mark the member faulty (mdadm --fail)"); ToolTip.delay: 600
                    }
                    TextField {
                        id: addPath
                        objectName: "addPathField"
                        placeholderText: qsTr("new member path")
                        implicitWidth: 260
                        selectByMouse: true
                        // Emptied once the add finished: the path is a member
                        // now (kept when the add failed or was cancelled).
                        property bool adding: false
                        Connections {
                            target: arrays
                            function onStatusChanged() {
                                if (!addPath.adding || arrays.working) return
                                if (arrays.status === ArraysController.Done) addPath.clear()
                                addPath.adding = false
                            }
                        }
                    }
                    Button {
                        objectName: "addButton"
                        text: qsTr("Add")
                        enabled: !arrays.working && addPath.text.length > 0
                        onClicked: addPath.adding = arrays.addMember(addPath.text, sizeField.text)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Put it in the first missing or faulty slot and rebuild onto it"); ToolTip.delay: 600
                    }
                }
                RowLayout {
                    visible: arrays.status !== ArraysController.Idle && !arrays.creating
                    spacing: 8
                    Label { text: arrays.taskName; font.bold: true }
                    ProgressBar {
                        objectName: "taskProgress"
                        Layout.preferredWidth: 320
                        value: Math.max(0, arrays.progress)
                        indeterminate: arrays.working && arrays.progress < 0
                    }
                    Button {
                        objectName: "cancelTaskButton"
                        text: qsTr("Cancel")
                        enabled: arrays.working
                        onClicked: arrays.cancel()
                    }
                    Label {
                        objectName: "arraysMessage"
                        text: arrays.errorString.length ? arrays.errorString : arrays.message
                        color: arrays.errorString.length ? Theme.negative : pal.windowText
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                }
            }
        }

        // Serving the open array over NBD: a block of its own (ServePanel.qml).
        ServePanel {
            objectName: "servePanel"
            Layout.fillWidth: true
            session: page.session
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("Create or open from members")
            subtitle: qsTr("one path per line: image files (created if missing) or block devices")
            implicitHeight: createCol.implicitHeight + 56
            ColumnLayout {
                id: createCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 8
                GridLayout {
                    columns: 8
                    columnSpacing: 8
                    Label { text: qsTr("Level") }
                    ComboBox {
                        id: levelBox
                        objectName: "levelBox"
                        model: arrays.levels.map(l => l.name)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("The RAID levels this build offers"); ToolTip.delay: 600
                    }
                    Label { text: qsTr("Layout") }
                    TextField {
                        id: layoutField
                        objectName: "layoutField"
                        readonly property var row: arrays.levels[levelBox.currentIndex]
                        enabled: row ? row.layouts.length > 0 : false
                        placeholderText: row ? row.defaultLayout : ""
                        implicitWidth: 130
                        ToolTip.visible: hovered
                        ToolTip.text: layoutField.row && layoutField.row.layouts.length
                                      ? qsTr("As mdadm spells it: %1").arg(layoutField.row.layouts.join(", "))
                                      : qsTr("This level has no layouts")
                        ToolTip.delay: 600
                    }
                    Label { text: qsTr("Chunk") }
                    TextField {
                        id: chunkField
                        objectName: "chunkField"
                        text: "512K"
                        enabled: layoutField.row ? layoutField.row.chunked : false
                        implicitWidth: 80
                        ToolTip.visible: hovered; ToolTip.text: qsTr("A power of two, 4K to 1G"); ToolTip.delay: 600
                    }
                    Label { text: qsTr("New file size") }
                    TextField {
                        id: sizeField
                        objectName: "sizeField"
                        text: "256M"
                        implicitWidth: 80
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Size of each image file created for a path that does not exist"); ToolTip.delay: 600
                    }
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 8
                    ScrollView {
                        Layout.fillWidth: true
                        Layout.preferredHeight: 96
                        TextArea {
                            id: membersText
                            objectName: "membersEditor"
                            font.family: "monospace"
                            placeholderText: page.session ? page.session.demoDir.replace("/demo", "") + "/a.img\n…/b.img" : ""
                            selectByMouse: true
                            background: Rectangle { color: pal.base; border.color: pal.mid; radius: 3 }
                            onTextChanged: inspectTimer.restart()
                            KeyNavigation.priority: KeyNavigation.BeforeItem
                            KeyNavigation.tab: createButton
                        }
                    }
                    Timer { id: inspectTimer; interval: 400; onTriggered: arrays.inspect(page.memberPaths()) }
                    // Described again once an operation ends (a create makes files exist).
                    Connections {
                        target: arrays
                        function onStatusChanged() { if (!arrays.working) inspectTimer.restart() }
                    }
                }
                // The candidates: what each path is, before anything is written.
                // Every path typed, in order, and only those: the description
                // comes 400 ms after the typing (and not while a task runs),
                // so a path not described yet says so ("checking…") rather
                // than being left out (a Create clicked at once showed the
                // refusal beside a table missing the new file).
                GridLayout {
                    id: candidateGrid
                    objectName: "candidateGrid"
                    readonly property var rows: {
                        const typed = page.memberPaths().filter((p, i, all) => all.indexOf(p) === i)
                        return typed.map(p => arrays.candidates.find(c => c.path === p)
                                              || { path: p, pending: true, exists: false, note: qsTr("checking…") })
                    }
                    columns: 5
                    columnSpacing: 16
                    visible: rows.length > 0
                    Repeater {
                        model: [qsTr("Path"), qsTr("Size"), qsTr("Rotational"), qsTr("io_opt"), qsTr("Note")]
                        Label { text: modelData; opacity: 0.7 }
                    }
                    Repeater {
                        model: candidateGrid.rows.length * 5
                        Label {
                            readonly property var c: candidateGrid.rows[Math.floor(index / 5)]
                            readonly property int col: index % 5
                            text: col === 0 ? c.path
                                  : c.pending && col < 4 ? ""
                                  : col === 1 ? (c.exists ? Theme.mebibytes(c.size)
                                                        : (isNaN(Theme.parseSize(sizeField.text)) ? sizeField.text
                                                                                                   : Theme.mebibytes(Theme.parseSize(sizeField.text))))
                                  : col === 2 ? (c.exists ? (c.rotational ? qsTr("yes") : qsTr("no")) : "–")
                                  : col === 3 ? (c.exists ? (c.ioOpt > 0 ? c.ioOpt + " B" : qsTr("none")) : "–")
                                  : c.note
                            color: col === 4 && c.exists && c.note.length > 0 ? Theme.negative : pal.windowText
                            opacity: c.pending && col === 4 ? 0.6 : 1
                            font.family: col === 0 ? "monospace" : Qt.application.font.family
                        }
                    }
                }
                RowLayout {
                    spacing: 8
                    TextField {
                        id: confirmField
                        objectName: "confirmField"
                        visible: arrays.candidates.some(c => c.blockDevice)
                        placeholderText: qsTr("type WRITE to confirm")
                        implicitWidth: 200
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Creating destroys what the devices hold"); ToolTip.delay: 300
                    }
                    Button {
                        id: createButton
                        objectName: "createButton"
                        text: qsTr("Create array")
                        highlighted: true
                        enabled: !arrays.working && page.memberPaths().length > 0
                        onClicked: arrays.create(arrays.levels[levelBox.currentIndex].level, layoutField.text,
                                                 chunkField.enabled ? chunkField.text : "",
                                                 page.memberPaths(), sizeField.text, confirmField.text)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Checks every member first; nothing is written unless all pass"); ToolTip.delay: 600
                    }
                    Button {
                        objectName: "openButton"
                        text: qsTr("Open existing")
                        enabled: !arrays.working && page.memberPaths().length > 0
                        onClicked: arrays.open(page.memberPaths())
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Assemble the array these members belong to"); ToolTip.delay: 600
                    }
                    Label {
                        objectName: "createMessage"
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        visible: arrays.creating
                        text: arrays.errorString.length ? arrays.errorString : arrays.message
                        color: arrays.errorString.length ? Theme.negative : pal.windowText
                    }
                }
            }
        }
    }
}
