// Create an array, in the order one decides it: 1 the level, 2 the members
// from the device picker (block devices, loop devices and image files with
// their size, model and rotational; one that cannot be used greyed with the
// reason), 3 layout, chunk and bitmap, 4 the summary and, when existing
// devices or files are overwritten, a typed confirmation that names them
// and holds only for this exact plan (any change withdraws it).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

Card {
    id: wizard
    property LiveSession session
    property ArraysController arrays
    property alias plan: plan
    property alias picker: picker
    // Asks the user before a running workload is stopped: fn(proceed).
    property var askStop: function (what, proceed) { proceed() }
    title: qsTr("Create an array")
    subtitle: qsTr("level, members, layout, then confirm")
    implicitHeight: col.implicitHeight + 56
    SystemPalette { id: pal }

    DevicePicker { id: picker }
    CreatePlan { id: plan; picker: picker }
    Component.onCompleted: picker.scan()
    // Made: the plan starts again (its members are the open array's now).
    Connections { target: wizard.arrays; function onCreated() { plan.clear() } }

    ColumnLayout {
        id: col
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 8
        // 1: level
        RowLayout {
            spacing: 8
            Label { text: qsTr("1  Level"); font.bold: true }
            ComboBox {
                id: levelBox
                objectName: "levelBox"
                model: wizard.arrays ? wizard.arrays.levels.map(l => l.name) : []
                onActivated: plan.level = wizard.arrays.levels[currentIndex].level
                Component.onCompleted: {
                    const i = wizard.arrays.levels.findIndex(l => l.level === plan.level)
                    if (i >= 0) currentIndex = i
                }
            }
            Label {
                text: plan.levelInfo.min !== undefined ? qsTr("%1 to %2 members").arg(plan.levelInfo.min).arg(plan.levelInfo.max) : ""
                opacity: 0.7
            }
        }
        // 2: members
        RowLayout {
            spacing: 8
            Label { text: qsTr("2  Members"); font.bold: true }
            Label { text: qsTr("tick them in order; greyed ones cannot be used (the reason is beside them)"); opacity: 0.7; Layout.fillWidth: true; elide: Text.ElideRight }
            Button { text: qsTr("Rescan"); enabled: !picker.scanning; onClicked: picker.scan() }
        }
        GridLayout {
            id: grid
            objectName: "candidateGrid"
            Layout.fillWidth: true
            columns: 7
            columnSpacing: 12
            rowSpacing: 2
            Repeater {
                model: ["", qsTr("Device or file"), qsTr("Kind"), qsTr("Size"), qsTr("Model"), qsTr("Rotational"), qsTr("Note")]
                Label { text: modelData; opacity: 0.7 }
            }
            Repeater {
                model: picker.candidates.length * 7
                delegate: Loader {
                    readonly property int row: Math.floor(index / 7)
                    readonly property int col: index % 7
                    readonly property var c: picker.candidates[row] || ({})
                    Layout.fillWidth: col === 6
                    Layout.maximumWidth: col === 1 ? 260 : -1
                    opacity: c.usable ? 1 : 0.5
                    sourceComponent: col === 0 ? pick : cell
                }
            }
        }
        RowLayout {
            spacing: 8
            Field {
                id: imagePath
                objectName: "imagePathField"
                placeholderText: qsTr("image file to add (made if missing)")
                implicitWidth: 300
                selectByMouse: true
                onAccepted: addImage.clicked()
            }
            Label { text: qsTr("new file size") }
            Field {
                objectName: "sizeField"
                text: picker.newFileSize
                implicitWidth: 80
                onEditingFinished: picker.newFileSize = text
            }
            Button {
                id: addImage
                objectName: "addImageButton"
                text: qsTr("Add file")
                enabled: imagePath.text.trim().length > 0
                onClicked: { picker.addImageFiles(imagePath.text.split(/[\n,]/).map(s => s.trim()).filter(s => s.length)); imagePath.clear() }
            }
        }
        // 3: layout, chunk, bitmap
        RowLayout {
            spacing: 8
            Label { text: qsTr("3  Layout"); font.bold: true }
            ComboBox {
                objectName: "layoutBox"
                enabled: (plan.levelInfo.layouts || []).length > 0
                model: [qsTr("default (%1)").arg(plan.levelInfo.defaultLayout || "–")].concat(plan.levelInfo.layouts || [])
                onActivated: plan.layout = currentIndex === 0 ? "" : (plan.levelInfo.layouts || [])[currentIndex - 1]
                implicitContentWidthPolicy: ComboBox.WidestText
            }
            Label { text: qsTr("Chunk") }
            Field {
                objectName: "chunkField"
                enabled: plan.levelInfo.chunked === true
                placeholderText: plan.levelInfo.defaultChunk || ""
                text: plan.chunk
                implicitWidth: 80
                onEditingFinished: plan.chunk = text
            }
            Label { text: qsTr("Bitmap") }
            ComboBox {
                objectName: "bitmapBox"
                model: ["automatic", "internal", "none"]
                onActivated: plan.bitmap = currentText
            }
        }
        // 4: summary and confirmation
        Label {
            objectName: "planSummary"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: plan.summary.length ? qsTr("4  %1").arg(plan.summary) : ""
            visible: text.length > 0
        }
        Label {
            objectName: "planProblems"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: Theme.negative
            visible: plan.members.length > 0 && plan.problems.length > 0
            text: plan.problems.join("\n")
        }
        Label {
            objectName: "confirmPrompt"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: plan.overwrites.length > 0
            text: plan.confirmationPrompt
            color: Theme.neutral
        }
        RowLayout {
            spacing: 8
            Field {
                id: confirmField
                objectName: "confirmField"
                visible: plan.overwrites.length > 0
                placeholderText: qsTr("type WRITE to confirm")
                implicitWidth: 200
                // Emptied whenever the plan changes: the confirmation was for the old one.
                text: plan.confirmation
                onTextEdited: plan.confirmation = text
            }
            Button {
                id: createButton
                objectName: "createButton"
                text: qsTr("Create array")
                highlighted: true
                enabled: !wizard.arrays.working && plan.ready
                onClicked: {
                    const stop = wizard.session && wizard.session.busy
                    const go = () => wizard.arrays.create(plan, stop)
                    if (stop) wizard.askStop(qsTr("Creating the array"), go)
                    else go()
                }
                ToolTip.visible: hovered; ToolTip.delay: 600
                ToolTip.text: qsTr("Checks every member first; nothing is written unless all pass")
            }
            Label {
                objectName: "createMessage"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                visible: wizard.arrays.creating
                text: wizard.arrays.errorString.length ? wizard.arrays.errorString : wizard.arrays.message
                color: wizard.arrays.errorString.length ? Theme.negative : pal.windowText
            }
        }
    }

    Component {
        id: pick
        Check {
            objectName: "pick_" + c.path
            enabled: c.usable === true || plan.members.indexOf(c.path) >= 0
            checked: plan.members.indexOf(c.path) >= 0
            onClicked: plan.toggleMember(c.path)
            text: checked ? String(plan.members.indexOf(c.path)) : ""
            ToolTip.visible: hovered; ToolTip.delay: 600
            ToolTip.text: checked ? qsTr("member %1 of the new array").arg(plan.members.indexOf(c.path)) : qsTr("use as a member")
        }
    }
    Component {
        id: cell
        Label {
            readonly property var texts: [c.path, c.kind, c.sizeText, c.model || "–",
                                          c.rotational, c.reason || (c.backing ? qsTr("over %1").arg(c.backing) : "")]
            text: texts[col - 1] || ""
            elide: col === 1 || col === 6 ? Text.ElideMiddle : Text.ElideNone
            color: col === 6 && !c.usable ? Theme.negative : pal.windowText
            font.family: col === 1 ? "monospace" : Qt.application.font.family
            ToolTip.visible: ch.hovered && truncated; ToolTip.text: text
            HoverHandler { id: ch }
        }
    }
}
