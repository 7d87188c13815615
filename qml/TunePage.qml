// Every tunable the running array has, generated from its registry (no
// list kept here): name, one line of help, range, and an editor per value
// (one per member for per-member tunables). A change applies at once to the
// running array and shows as a mark on the dashboard's time axis.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

ColumnLayout {
    id: page
    property LiveSession session
    spacing: Theme.spacing
    SystemPalette { id: pal }
    // Every editor row as tall as the tallest editor (a switch is taller
    // than a text field), and never less than the dashboard's member rows:
    // the per-member rows are evenly spaced in every card, as the Members
    // card spaces its rows.
    readonly property real editorRowHeight: Math.max(Theme.memberRowHeight, probeSwitch.implicitHeight, probeCombo.implicitHeight,
                                                     probeField.implicitHeight, probeSpin.implicitHeight)
    Item {
        visible: false  // measures only: out of the layout
        Switch { id: probeSwitch; text: qsTr("off") }
        ComboBox { id: probeCombo }
        Field { id: probeField }
        Spin { id: probeSpin }
    }

    RowLayout {
        Layout.fillWidth: true
        Label {
            text: qsTr("Tunables")
            font.pixelSize: 18
            font.bold: true
        }
        Label {
            Layout.fillWidth: true
            objectName: "tuneSubtitle"
            // The empty state is said here rather than by a label of its
            // own: a label that hid once the tunables came left its gap
            // above the chart (the layout kept its place).
            text: !page.session || page.session.tunables.count === 0
                  ? qsTr("the array's tunables appear once it is open")
                  : page.session.running ? qsTr("changes apply to the running array at once")
                                         : qsTr("changes apply to the open array at once and stay for the next run")
            opacity: 0.7
        }
    }
    // A small share chart so the effect of a change shows right here.
    ChartCard {
        objectName: "tuneShareChart"
        Layout.fillWidth: true
        implicitHeight: 170
        title: qsTr("Read share per member")
        model: page.session ? page.session.telemetry : null
        metric: "share"
        unit: "%"
        fixedMax: 100
        window: 30
        emptyText: qsTr("No reads in this window")
        // Always in the layout (before the first sample it says "Waiting
        // for data…", then why a window is empty): an item that turns visible later was left unplaced by
        // the layout here, drawn over the list.
        Layout.preferredHeight: 170
        Layout.rightMargin: 12  // lined up with the list's cards (room for its scroll bar)
    }
    ListView {
        id: list
        objectName: "tunablesList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        spacing: 6
        model: page.session ? page.session.tunables : null
        ScrollBar.vertical: ScrollBar {}
        delegate: Card {
            id: row
            required property int index
            required property string name
            required property string type
            required property real minimum
            required property real maximum
            required property var choices
            required property string unit
            required property string help
            required property bool perMember
            required property var values
            required property string rangeText
            width: ListView.view.width - 12
            implicitHeight: Math.max(info.implicitHeight, editors.implicitHeight) + 24
            RowLayout {
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 16
                ColumnLayout {
                    id: info
                    Layout.fillWidth: true
                    Layout.alignment: Qt.AlignTop
                    spacing: 2
                    Label { text: row.name; font.bold: true; font.family: "monospace" }
                    Label { text: row.help; wrapMode: Text.Wrap; Layout.fillWidth: true; opacity: 0.8 }
                    Label { text: row.rangeText; opacity: 0.6; elide: Text.ElideRight; Layout.fillWidth: true }
                }
                ColumnLayout {
                    id: editors
                    Layout.alignment: Qt.AlignTop | Qt.AlignRight
                    spacing: Theme.memberRowSpacing
                    Repeater {
                        model: row.perMember ? row.values.length : 1
                        RowLayout {
                            objectName: "editorRow_" + editor.address
                            Layout.minimumHeight: page.editorRowHeight
                            spacing: 6
                            Rectangle {
                                visible: row.perMember
                                width: 10; height: 10; radius: 2
                                color: Theme.memberColor(index)
                            }
                            Label { visible: row.perMember; text: "rd" + index; font.family: "monospace" }
                            TunableEditor {
                                id: editor
                                address: row.perMember ? "rd" + index + "/" + row.name : row.name
                                type: row.type
                                minimum: row.minimum
                                maximum: row.maximum
                                choices: row.choices
                                unit: row.unit
                                value: row.values[index] || ""
                                rangeText: row.rangeText
                                applyValue: (a, t) => page.session.setTunable(a, t)
                                // The engine refused a value the range check let through.
                                Connections {
                                    target: page.session
                                    function onTunableFailed(name, message) {
                                        if (name === editor.address) editor.refuse(message)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
